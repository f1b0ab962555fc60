/**
 * Numbered migrations, applied in order, each in its own transaction; `PRAGMA user_version` records the last one
 * applied. Never edit a migration that has shipped: add the next number.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

import { initial } from './001-initial.js';
import { approvalsRulesProfiles } from './002-approvals-rules-profiles.js';

export const MIGRATIONS: readonly Migration[] = [initial, approvalsRulesProfiles];
