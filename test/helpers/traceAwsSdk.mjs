// Preloaded with `node --import` by test/cli/noAwsSdk.test.ts: records every module of the
// AWS SDK (@aws-sdk/*) the process resolves through the ESM loader, and at exit every one in
// the CommonJS require cache, into the file named by SARWATCH_TRACE_AWS_SDK, one per line.
import fs from 'node:fs';
import { createRequire, register } from 'node:module';

const out = process.env.SARWATCH_TRACE_AWS_SDK;
if (out) {
  fs.writeFileSync(out, '');
  register(
    'data:text/javascript,' +
      encodeURIComponent(`
        import fs from 'node:fs';
        export async function resolve(specifier, context, next) {
          const r = await next(specifier, context);
          if (/[\\\\/]@aws-sdk[\\\\/]|^@aws-sdk\\//.test(specifier) || r.url.includes('/@aws-sdk/')) fs.appendFileSync(${JSON.stringify(out)}, 'import ' + r.url + '\\n');
          return r;
        }`),
  );
  const require = createRequire(import.meta.url);
  process.on('exit', () => {
    const loaded = Object.keys(require.cache).filter((f) => f.includes('/@aws-sdk/'));
    if (loaded.length) fs.appendFileSync(out, loaded.map((f) => `require ${f}\n`).join(''));
  });
}
