/**
 * Where a webhook may be sent. By default: https only, and never to a loopback, private,
 * link-local (cloud metadata: 169.254.169.254, fd00:ec2::254), shared, multicast or reserved
 * address — checked on the addresses the name resolves to at send time, and the connection
 * is made to the address that was checked (a second DNS answer cannot swap it). Redirects
 * are not followed (a 3xx is a failed attempt). SARWATCH_WEBHOOK_ALLOW_PRIVATE=1 lifts the
 * address and scheme rules, for tests and on-premises receivers.
 */
import { lookup } from 'node:dns/promises';
import net from 'node:net';

const blocked = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) blocked.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) blocked.addSubnet(prefix, bits, 'ipv6');

export class WebhookTargetError extends Error {}

/** True for an address no webhook may reach by default (IPv4-mapped IPv6 is judged as its IPv4). */
export function isForbiddenAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  return blocked.check(address, 'ipv6');
}

/** The rules a URL must meet when a webhook is created (the address is checked again at send time). */
export function checkWebhookUrl(text: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookTargetError('url is not an absolute URL');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) throw new WebhookTargetError('url must use https');
  if (url.username || url.password) throw new WebhookTargetError('url must not carry credentials');
  if (url.hash) throw new WebhookTargetError('url must not have a #fragment');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && net.isIP(host) && isForbiddenAddress(host)) {
    throw new WebhookTargetError('url points to a loopback, private, link-local or reserved address');
  }
  if (!allowPrivate && /^(localhost|.*\.localhost|.*\.local|.*\.internal)$/i.test(host)) {
    throw new WebhookTargetError('url points to a local host name');
  }
  return url;
}

/** Resolves the host and returns one allowed address to connect to; throws when any answer is forbidden. */
export async function resolveTarget(hostname: string, allowPrivate: boolean): Promise<{ address: string; family: 4 | 6 }> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const answers = net.isIP(host) ? [{ address: host, family: net.isIP(host) as 4 | 6 }] : await lookup(host, { all: true, verbatim: true });
  if (answers.length === 0) throw new WebhookTargetError(`${host} does not resolve`);
  // Every answer is checked, not only the first: a name that mixes a public and a private
  // address is refused rather than trusted to resolve the public one.
  if (!allowPrivate && answers.some((a) => isForbiddenAddress(a.address))) {
    throw new WebhookTargetError(`${host} resolves to a loopback, private, link-local or reserved address`);
  }
  const first = answers[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
