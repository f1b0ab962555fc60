import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeConfigFile } from '../../config/config-file.js';
import type { Risk } from '../../tools/types.js';

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

/**
 * The owner's acceptances of imported MCP tools, per server, in `mcp-servers.json` in the data directory (mode
 * 0600, replaced atomically). Kept out of config.json: the owner writes config, the gateway writes this.
 */
export class McpPins {
  readonly #file: string;
  #pins: PinFile;

  constructor(dataDir: string) {
    this.#file = join(dataDir, 'mcp-servers.json');
    this.#pins = existsSync(this.#file) ? readPins(this.#file) : {};
  }

  get(server: string, tool: string): ToolPin | undefined {
    const tools = Object.hasOwn(this.#pins, server) ? this.#pins[server] : undefined;
    return tools && Object.hasOwn(tools, tool) ? tools[tool] : undefined;
  }

  accept(server: string, tool: string, definition: ToolDefinitionText, risk: Risk, now = new Date()): ToolPin {
    const pin: ToolPin = { hash: definitionHash(definition), definition, risk, accepted_at: now.toISOString() };
    this.#pins[server] = { ...this.#pins[server], [tool]: pin };
    this.#save();
    return pin;
  }

  /** The owner turns a tool off: it is not imported and no longer waits for them, until they accept it. */
  disable(server: string, tool: string, definition: ToolDefinitionText, now = new Date()): ToolPin {
    const previous = this.get(server, tool);
    const pin: ToolPin = { hash: definitionHash(definition), definition, risk: previous?.risk ?? 'sensitive', accepted_at: now.toISOString(), disabled: true };
    this.#pins[server] = { ...this.#pins[server], [tool]: pin };
    this.#save();
    return pin;
  }

  /** Forgets a removed server's acceptances: added again, its tools are new again. */
  forget(server: string): void {
    if (!(server in this.#pins)) return;
    delete this.#pins[server];
    this.#save();
  }

  #save(): void {
    writeConfigFile(this.#file, this.#pins);
  }
}

function readPins(file: string): PinFile {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as PinFile) : {};
  } catch {
    // An unreadable file accepts nothing: every tool is new again and asks for the owner's acceptance.
    return {};
  }
}
