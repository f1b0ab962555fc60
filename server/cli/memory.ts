import { createReadStream, createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { asOwner, configFrom, failed, ownerRequest, parse, shorten, table, UsageError, type Out } from './common.js';

const USAGE = `usage: pincer memory add "<text>" [--tags a,b] [--category C] [--json]
       pincer memory search "<query>" [--method hybrid|keyword|tfidf|fuzzy] [--limit N] [--tags a,b] [--category C] [--json]
       pincer memory rm <id>
       pincer memory export [--out FILE]
       pincer memory import <FILE|->`;

type Row = { id: number; content: string; score: number | null; client: string; tags: string[]; flagged: { rule: string } | null };

/**
 * `pincer memory`: the memory store through the running gateway (or one started for the command), as the owner.
 * Export and import stream JSONL both ways, so a memory store of any size passes in constant memory.
 */
export async function memory(args: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(args, {
    tags: { type: 'string' },
    category: { type: 'string' },
    method: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
    out: { type: 'string' },
  });
  const [action, operand, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(USAGE);
  const config = configFrom(values);
  const str = (key: string) => (typeof values[key] === 'string' ? (values[key] as string) : undefined);

  if (action === 'add' && operand !== undefined) {
    const tags = str('tags')?.split(',').map((t) => t.trim()).filter((t) => t !== '');
    const body = { content: operand, ...(tags && { tags }), ...(str('category') !== undefined && { category: str('category') }) };
    const { status, json } = await ownerRequest(config, 'POST', '/memory', body);
    if (status !== 201) return failed(json, out);
    const stored = json as Row;
    out.log(values.json ? JSON.stringify(stored, null, 2) : `Remembered as ${stored.id}.${stored.flagged ? ` Flagged: ${stored.flagged.rule}.` : ''}`);
    return 0;
  }
  if (action === 'search' && operand !== undefined) {
    const query = new URLSearchParams({ q: operand });
    for (const key of ['method', 'limit', 'tags', 'category']) if (str(key) !== undefined) query.set(key, str(key)!);
    const { status, json } = await ownerRequest(config, 'GET', `/memory?${query}`);
    if (status !== 200) return failed(json, out);
    if (values.json) {
      out.log(JSON.stringify(json, null, 2));
      return 0;
    }
    const rows = (json as { results: Row[] }).results;
    if (rows.length === 0) out.log('No memory matches.');
    else {
      out.log(
        table(
          ['ID', 'SCORE', 'CLIENT', 'FLAG', 'CONTENT'],
          rows.map((r) => [String(r.id), r.score === null ? '-' : r.score.toFixed(3), r.client, r.flagged?.rule ?? '-', shorten(r.content.replace(/\s+/g, ' '), 80)]),
        ),
      );
    }
    return 0;
  }
  if (action === 'rm' && operand !== undefined) {
    const { status, json } = await ownerRequest(config, 'DELETE', `/memory/${encodeURIComponent(operand)}`);
    if (status !== 200) return failed(json, out);
    out.log(`Memory ${operand} deleted.`);
    return 0;
  }
  if (action === 'export' && operand === undefined) {
    const file = str('out');
    return asOwner(config, async (base, headers) => {
      const response = await fetch(`${base}/memory/export?format=jsonl`, { headers });
      if (response.status !== 200 || !response.body) return failed(await response.json(), out);
      // Streamed straight through, with backpressure: the export is never held whole.
      const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
      if (file === undefined) await pipeline(body, process.stdout, { end: false });
      else {
        await pipeline(body, createWriteStream(file, { mode: 0o600 }));
        out.error(`Memories written to ${file}.`);
      }
      return 0;
    });
  }
  if (action === 'import' && operand !== undefined) {
    return asOwner(config, async (base, headers) => {
      const source = operand === '-' ? process.stdin : createReadStream(operand);
      const response = await fetch(`${base}/memory/import`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-ndjson' },
        body: Readable.toWeb(source) as ReadableStream<Uint8Array>,
        duplex: 'half',
      } as RequestInit);
      const json = (await response.json()) as { imported: number; skipped: number; failed: number; errors: Array<{ line: number; message: string }> };
      if (response.status !== 200) return failed(json, out);
      out.log(`Imported ${json.imported}, skipped ${json.skipped} already present, ${json.failed} failed.`);
      for (const error of json.errors) out.error(`line ${error.line}: ${error.message}`);
      return json.failed > 0 ? 1 : 0;
    });
  }
  throw new UsageError(USAGE);
}
