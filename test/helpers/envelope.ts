import { expect } from 'vitest';
import { HTTP_ERRORS } from '../../src/contract/errors.ts';

/** The status carries the envelope, with a code from the table that belongs to that status. */
export function expectEnvelope(status: number, body: string, code: string): void {
  const json = JSON.parse(body);
  expect(Object.keys(json)).toEqual(['error']);
  expect(json.error.code).toBe(code);
  expect(HTTP_ERRORS[code as keyof typeof HTTP_ERRORS].status).toBe(status);
  expect(typeof json.error.message).toBe('string');
  expect(json.error.message.length).toBeGreaterThan(0);
}
