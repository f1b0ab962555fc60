import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { AcceptanceStore } from '../../store/index.js';
import { RISKS, type Risk } from '../../tools/types.js';
import { isPlainObject } from '../../util/json.js';

/** What the owner accepted of one imported tool: its definition then, and the risk they rated it. */
export interface ToolPin {
  hash: string;
  definition: ToolDefinitionText;
  risk: Risk;
  accepted_at: string;
  /** The owner turned the tool off: it stays off, whatever its definition, until they accept it. */
  disabled?: true;
}

/** The parts of an MCP tool's definition the model reads or that shape its calls: a change to any is a change. */
export interface ToolDefinitionText {
  title?: string | undefined;
  description: string;
  inputSchema: unknown;
  /** Absent from pins made before it was pinned: a tool with one then shows as changed once. */
  outputSchema?: unknown;
  annotations?: unknown;
}

type PinFile = Record<string, Record<string, ToolPin>>;

/** A stable hash of a definition: keys sorted at every level, so the same definition always hashes the same. */
export function definitionHash(definition: ToolDefinitionText): string {
  return createHash('sha256').update(canonical(definition)).digest('hex');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Where older Pincers kept these acceptances; read once into the acceptance store, then kept under another name. */
export const OLD_PINS_FILE = 'mcp-servers.json';

/**
 * The store's row of a server as a whole (tool ''), which holds its package version (PackageVersions).
 * Security: no tool is pinned under it, so a server that offers a tool named '' cannot overwrite what the owner accepted.
 */
export const SERVER_ROW = '';

function pinnable(tool: string): void {
  if (tool === SERVER_ROW) throw new Error('an MCP tool without a name cannot be accepted or disabled');
}

/**
 * The owner's acceptances of imported MCP tools, tool by tool, in the one acceptance store: the definition they
 * accepted and the risk they rated it. On first use it takes over those an older Pincer kept in `mcp-servers.json`.
 */
export class McpPins {
  constructor(
    private readonly acceptances: AcceptanceStore,
    dataDir?: string,
    log: (line: string) => void = () => undefined,
  ) {
    if (dataDir) importOldPins(acceptances, dataDir, log);
  }

  get(server: string, tool: string): ToolPin | undefined {
    if (tool === SERVER_ROW) return undefined;
    const row = this.acceptances.get('mcp', server, tool);
    if (!row) return undefined;
    return {
      hash: row.hash,
      definition: row.accepted as ToolDefinitionText,
      risk: (RISKS.includes(row.risk as Risk) ? row.risk : 'sensitive') as Risk,
      accepted_at: row.accepted_at,
      ...(row.disabled && { disabled: true as const }),
    };
  }

  accept(server: string, tool: string, definition: ToolDefinitionText, risk: Risk, now = new Date()): ToolPin {
    pinnable(tool);
    const pin: ToolPin = { hash: definitionHash(definition), definition, risk, accepted_at: now.toISOString() };
    this.acceptances.put({ kind: 'mcp', source: server, tool, hash: pin.hash, accepted: definition, risk, disabled: false }, 'owner', now.getTime());
    return pin;
  }

  /** The owner turns a tool off: it is not imported and no longer waits for them, until they accept it. */
  disable(server: string, tool: string, definition: ToolDefinitionText, now = new Date()): ToolPin {
    pinnable(tool);
    const previous = this.get(server, tool);
    const pin: ToolPin = { hash: definitionHash(definition), definition, risk: previous?.risk ?? 'sensitive', accepted_at: now.toISOString(), disabled: true };
    this.acceptances.put({ kind: 'mcp', source: server, tool, hash: pin.hash, accepted: definition, risk: pin.risk, disabled: true }, 'owner', now.getTime());
    return pin;
  }

  /** Forgets a removed server's acceptances, its package version's too: added again, its tools are new again. */
  forget(server: string): void {
    this.acceptances.forget('mcp', server);
  }
}

/**
 * Moves the acceptances an older Pincer kept in mcp-servers.json into the store, losing none: each pin becomes a
 * row (one the store already has is newer and stays), then the file is renamed so it is not read again but is kept.
 * An unreadable file is left where it is, and accepts nothing (as before): every tool in it asks again.
 */
function importOldPins(acceptances: AcceptanceStore, dataDir: string, log: (line: string) => void): void {
  const file = join(dataDir, OLD_PINS_FILE);
  if (!existsSync(file)) return;
  let pins: PinFile;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (!isPlainObject(parsed)) throw new Error('not a JSON object');
    pins = parsed as PinFile;
  } catch (error) {
    log(`pincer: ${file} could not be read (${(error as Error).message}); the MCP tools it accepted ask again`);
    return;
  }
  const entries = Object.entries(pins).flatMap(([server, tools]) =>
    isPlainObject(tools)
      ? Object.entries(tools)
          .filter(([tool, pin]) => tool !== SERVER_ROW && isPlainObject(pin) && typeof pin.hash === 'string')
          .map(([tool, pin]) => ({
            kind: 'mcp' as const,
            source: server,
            tool,
            hash: pin.hash,
            accepted: pin.definition ?? null,
            risk: typeof pin.risk === 'string' ? pin.risk : null,
            disabled: pin.disabled === true,
            accepted_at: Number.isFinite(Date.parse(pin.accepted_at)) ? Date.parse(pin.accepted_at) : Date.now(),
            accepted_by: 'owner',
          }))
      : [],
  );
  acceptances.importOld(entries);
  try {
    renameSync(file, `${file}.imported`);
  } catch (error) {
    // Another process of this data folder (a command next to the gateway) read it in at the same moment.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
