/**
 * Webhook and monitor event schemas (issue 21 §2): what POST/GET /api/v1/webhooks take and
 * answer, and the delivery log.
 */
import Type, { type Static } from 'typebox';

export const WEBHOOK_EVENT_TYPES = ['job.completed', 'job.failed', 'monitor.triggered', 'monitor.suspended'] as const;

const IsoTimestamp = Type.String({ description: 'ISO 8601 UTC timestamp with Z suffix' });
const NullableTimestamp = Type.Union([IsoTimestamp, Type.Null()]);

export const WebhookCreateBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'Where events are POSTed: https, a public address (SARWATCH_WEBHOOK_ALLOW_PRIVATE=1 lifts both rules)' }),
    events: Type.Array(Type.Enum([...WEBHOOK_EVENT_TYPES]), { minItems: 1, maxItems: WEBHOOK_EVENT_TYPES.length, uniqueItems: true, description: 'Event types to receive' }),
  },
  { additionalProperties: false },
);
export type WebhookCreateBody = Static<typeof WebhookCreateBody>;

export const Webhook = Type.Object({
  webhook_id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  events: Type.Array(Type.String()),
  state: Type.Enum(['enabled', 'disabled']),
  disabled_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why deliveries stopped (24 h of failures); null while enabled' }),
  failing_since: Type.Union([IsoTimestamp, Type.Null()], { description: 'First failed attempt since the last success; null while deliveries succeed' }),
  previous_secret_expires_at: Type.Union([IsoTimestamp, Type.Null()], { description: 'After a rotation: until when the previous secret also signs' }),
  created_at: IsoTimestamp,
});
export type Webhook = Static<typeof Webhook>;

export const WebhookWithSecret = Type.Intersect([
  Webhook,
  Type.Object({ secret: Type.String({ description: 'whsec_<base64>: the signing secret, shown this once' }) }),
]);
export type WebhookWithSecret = Static<typeof WebhookWithSecret>;

export const WebhookList = Type.Object({ webhooks: Type.Array(Webhook) });
export type WebhookList = Static<typeof WebhookList>;

export const Delivery = Type.Object({
  delivery_id: Type.String({ format: 'uuid' }),
  event_id: Type.String({ description: 'The stable event id: the webhook-id header of every attempt' }),
  event_type: Type.String(),
  status: Type.Enum(['pending', 'delivered', 'failed'], { description: 'pending: an attempt is due at next_attempt_at; failed: retries ended (24 h) or the webhook was disabled' }),
  attempts: Type.Integer(),
  last_status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the last attempt; null when no answer came' }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  last_response_body: Type.Union([Type.String(), Type.Null()], { description: "The receiver's last answer, at most 1 KiB. Untrusted text: escape before display" }),
  next_attempt_at: NullableTimestamp,
  created_at: IsoTimestamp,
  last_attempt_at: NullableTimestamp,
  delivered_at: NullableTimestamp,
});
export type Delivery = Static<typeof Delivery>;

export const DeliveryList = Type.Object({ deliveries: Type.Array(Delivery) });
export type DeliveryList = Static<typeof DeliveryList>;

export const WebhookIdParams = Type.Object({ webhook_id: Type.String() });
export const DeliveryParams = Type.Object({ webhook_id: Type.String(), delivery_id: Type.String() });
