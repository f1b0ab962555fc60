export type {
  ImportedToolStatus,
  ImportedToolView,
  McpServerStatus as ServerStatus,
  McpServerView,
} from '../../contract/sources.js';
import type { McpServerStatus } from '../../contract/sources.js';

/** What the event stream says when a server's status, errors or tools change (or it is removed): viewers refetch. */
export interface McpServerChange {
  name: string;
  status: McpServerStatus | 'removed';
  last_error: string | null;
  restarts: number;
}

/** Said wherever the owner accepts an imported server's tools. */
export const NOTICE =
  "An imported MCP server runs with your user's rights, outside Pincer's sandbox: Pincer's policy, approvals and log " +
  'cover each call it makes to the server, not what the server itself does.';
