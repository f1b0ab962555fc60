import type { Response } from 'express';

/**
 * JSON answers for the hot paths (a tool call, a tool list). The same bytes and headers as res.json, without its
 * per-answer settings look-ups and content-type parsing.
 */
export function sendJson(res: Response, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  // A string, not a Buffer: Node sends it in one write together with the headers.
  res.end(body);
}

/** Sends JSON bytes as they are (res.json would serialise again). */
export function sendJsonBytes(res: Response, body: Buffer): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', body.length);
  res.end(body);
}
