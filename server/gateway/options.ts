/** What createGateway takes: the configuration, and what tests, the CLI and the desktop shell change of it. */
import type { PincerConfig } from '../config/config.js';
import type { ConnectionLimits } from '../http/connection-limits.js';
import type { StreamLimits } from '../http/event-streams.js';
import type { Policy } from '../policy/policy.js';
import type { RetentionOptions } from '../store/index.js';
import type { DesktopBridge } from '../desktop.js';
import type { AnyTool } from '../tools/types.js';
import type { BridgeOptions } from '../llm/bridge.js';

export interface GatewayOptions {
  config: PincerConfig;
  /** Tools registered besides the built-ins (tests, embedders). */
  extraTools?: AnyTool[];
  policy?: Policy;
  /** Native notifications and clipboard, when the desktop shell hosts the gateway. */
  desktop?: DesktopBridge;
  /** better-sqlite3 addon built for another runtime (the Electron app). */
  sqliteBinding?: string;
  /** Where start-up notices go (what an earlier run left running); default standard error. */
  log?: (line: string) => void;
  /** Connection cap and timeouts; the defaults are sized from the open-file limit (tests set small ones). */
  connectionLimits?: Partial<ConnectionLimits>;
  /** Batch size and pacing of history pruning (tests set small ones). */
  retention?: RetentionOptions;
  /** Bounds of the GET /events streams (tests set small ones). */
  streamLimits?: Partial<StreamLimits>;
  /** Where bundled plugins are; null for none. Default: the `plugins/` folder shipped with this package. */
  bundledPluginsDir?: string | null;
  /** The bundled plugins' hashes recorded by the build. Default: the record inside this package. */
  bundledPluginsRecord?: string;
  /** Quiet period before a change in a plugin folder is acted on (tests set a long one to see the start checks alone). */
  pluginDebounceMs?: number;
  /** false: load no plugin (a gateway started for one CLI command that does not need them). Default true. */
  loadPlugins?: boolean;
  /**
   * false: leave what an earlier run left (open calls and approvals, processes in the ledger) to the next gateway
   * that serves the folder — a gateway started for one CLI command is not the owner of its live state. Default true.
   */
  recover?: boolean;
  /** How often an MCP call waiting for approval reports progress (tests set a short one). */
  mcpProgressIntervalMs?: number;
  /** How long an MCP task (a 2026-07-28 call waiting for the owner) is kept from its creation (tests set a short one). */
  mcpTaskTtlMs?: number;
  /** Backoff steps between restarts of a crashed imported MCP server (tests set short ones). */
  mcpBackoffMs?: readonly number[];
  /** Retries, backoff and silence timeout towards the LLM server, and the tool loop's step limit (tests set small ones). */
  llm?: Pick<BridgeOptions, 'upstream' | 'maxSteps'>;
}
