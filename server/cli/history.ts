import { closeSync, openSync, writeSync } from 'node:fs';
import { CALL_STATUSES, type CallStatus } from '../store/index.js';
import { configFrom, notAChoice, parse, UsageError, withCredentials, type Out } from './common.js';

const USAGE = 'usage: pincer calls export [--since ISO|epoch-ms] [--tool T] [--client C] [--status S] [--out FILE]';

/**
 * `pincer calls export`: the history as JSONL, oldest first, read page by page from the data directory (whoever can
 * read it is the owner), so a history of any size goes out in constant memory, with or without a running gateway.
 */
export function calls(args: string[], out: Out): number {
  const { values, positionals } = parse(args, {
    since: { type: 'string' },
    tool: { type: 'string' },
    client: { type: 'string' },
    status: { type: 'string' },
    out: { type: 'string' },
  });
  if (positionals.length !== 1 || positionals[0] !== 'export') throw new UsageError(USAGE);
  const filter: { since?: number; tool?: string; client?: string; status?: CallStatus } = {};
  if (typeof values.since === 'string') {
    const since = /^\d+$/.test(values.since) ? Number(values.since) : Date.parse(values.since);
    if (!Number.isFinite(since)) throw new UsageError('--since must be an ISO 8601 date-time or epoch milliseconds');
    filter.since = since;
  }
  if (typeof values.status === 'string') {
    if (!CALL_STATUSES.includes(values.status as CallStatus)) throw notAChoice('status', values.status, CALL_STATUSES);
    filter.status = values.status as CallStatus;
  }
  if (typeof values.tool === 'string') filter.tool = values.tool;
  if (typeof values.client === 'string') filter.client = values.client;

  const fd = typeof values.out === 'string' ? openSync(values.out, 'w', 0o600) : undefined;
  try {
    let count = 0;
    withCredentials(configFrom(values), ({ store }) => {
      for (const page of store.calls.exportPages(filter)) {
        const lines = page.map((call) => JSON.stringify(call));
        if (fd === undefined) out.log(lines.join('\n'));
        else writeSync(fd, `${lines.join('\n')}\n`);
        count += page.length;
      }
    });
    if (fd !== undefined) out.error(`${count} call${count === 1 ? '' : 's'} written to ${values.out as string}.`);
    return 0;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
