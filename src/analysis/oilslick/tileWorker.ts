/**
 * Worker-thread entry: runs detectSlicksInTile on the tiles the main thread reads. Messages
 * in: { id, input, params }; out: { id, result } or { id, error }. Arrays travel as
 * transferables both ways, so a tile is never copied.
 */
import { parentPort } from 'node:worker_threads';
import { detectSlicksInTile, type SlickTileInput, type TileRegions } from './detect.ts';
import type { OilSlickParams } from './params.ts';

export interface TileRequest {
  id: number;
  input: SlickTileInput;
  params: OilSlickParams;
}

export type TileReply = { id: number; result: TileRegions } | { id: number; error: string };

export function tileTransferables(result: TileRegions): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const p of result.parts) out.push(p.runs.buffer as ArrayBuffer);
  const e = result.edges;
  out.push(e.top.buffer as ArrayBuffer, e.bottom.buffer as ArrayBuffer, e.left.buffer as ArrayBuffer, e.right.buffer as ArrayBuffer);
  return out;
}

const port = parentPort;
if (port) {
  port.on('message', (request: TileRequest) => {
    try {
      const result = detectSlicksInTile(request.input, request.params);
      const reply: TileReply = { id: request.id, result };
      port.postMessage(reply, tileTransferables(result));
    } catch (error) {
      const reply: TileReply = { id: request.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
      port.postMessage(reply);
    }
  });
  port.postMessage({ ready: true });
}
