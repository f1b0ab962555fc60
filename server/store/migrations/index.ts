/**
 * Numbered migrations, applied in order, each in its own transaction; `PRAGMA user_version` records the last one
 * applied. Never edit a migration that has shipped: add the next number.
 */
import { initial } from './001-initial.js';
import { approvalsRulesProfiles } from './002-approvals-rules-profiles.js';
import { memory } from './003-memory.js';
import { clientMemoryScope } from './005-client-memory-scope.js';
import { plugins } from './006-plugins.js';
import { memoryGramsAndBulk } from './007-memory-grams-and-bulk.js';
import { conversations } from './008-conversations.js';
import { clientHistoryAndWriterStatistics } from './009-client-history-and-writer-statistics.js';
import { pluginFiles } from './010-plugin-files.js';
import { fileWrites } from './011-file-writes.js';
import { approvalKinds } from './012-approval-kinds.js';
import { callRecovery } from './013-call-recovery.js';
import { clientBudget } from './014-client-budget.js';
import { acceptances } from './015-acceptances.js';
import type { Migration } from './migration.js';

export type { Migration } from './migration.js';

export const MIGRATIONS: readonly Migration[] = [initial, approvalsRulesProfiles, memory, clientMemoryScope, plugins, memoryGramsAndBulk, conversations, clientHistoryAndWriterStatistics, pluginFiles, fileWrites, approvalKinds, callRecovery, clientBudget, acceptances];
