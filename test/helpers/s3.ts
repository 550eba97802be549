/**
 * An S3-compatible server (s3rver) started in the test process, on a free port, with an
 * empty bucket; and the environment that points sarwatch at it. s3rver checks request
 * signatures against its fixed credentials, so presigned URLs are verified for real.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export const S3RVER_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** STORAGE_URL, S3_ENDPOINT, S3_FORCE_PATH_STYLE and the AWS credentials. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startS3rver(bucket = 'sarwatch-test', prefix = 'results-prefix'): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'sarwatch-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: { STORAGE_URL: `s3://${bucket}/${prefix}`, S3_ENDPOINT: endpoint, S3_FORCE_PATH_STYLE: 'true', ...S3RVER_CREDENTIALS },
    async close() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
