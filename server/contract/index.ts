/**
 * The gateway's wire contract: every shape the HTTP API and `GET /events` put on the wire, types only. The server's
 * records are these types (or are checked against them at compile time); the dashboard imports them with
 * `import type`, so a field renamed on one side fails to compile on the other.
 */
export type * from './approvals.js';
export type * from './cache.js';
export type * from './calls.js';
export type * from './chat.js';
export type * from './clients.js';
export type * from './envelope.js';
export type * from './events.js';
export type * from './memory.js';
export type * from './rules.js';
export type * from './settings.js';
export type * from './stats.js';
export type * from './sources.js';
export type * from './tools.js';
