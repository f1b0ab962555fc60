import type { ErrorBody, StreamEvents } from '../../../server/contract';

// The gateway's JSON as the dashboard reads it is the wire contract (server/contract/), imported as types only: a
// field renamed on the server fails to compile here. What follows it exists only in the page.

export type {
  Approval,
  ApprovalAnswer,
  ApprovalList,
  ApprovalRecord,
  CacheCounters,
  CacheCleared,
  CacheReport,
  CallPage,
  CallPhase,
  CallRecord,
  CallStatus,
  ChatAnswer,
  ChatAnswerMeta,
  ChatCallRecovery,
  ChatModel,
  ChatModelList,
  ChatStep,
  ChatToolMode,
  ChatWindowReport,
  ClientProfile,
  ClientBudget,
  ClientHistoryScope,
  ClientList,
  ClientMemoryScope,
  ClientToken,
  ClientToolSet,
  Conversation,
  ConversationList,
  ConversationSummary,
  DefaultToken,
  ElicitationField,
  ElicitationSchema,
  FoundTool,
  HistoryLimits,
  HistoryPreview,
  HistoryRetention,
  HistoryScope,
  IssuedToken,
  JsonSchema,
  ListedCall,
  LiveCall,
  Memory,
  MemoryDraft,
  MemoryImportReport,
  MemoryMatch,
  MemoryNewest,
  MemoryResult,
  MemoryResults,
  MemoryScope,
  Provenance,
  Risk,
  Rule,
  RuleDraft,
  RuleEffect,
  RuleList,
  RuleScope,
  SearchMethod,
  Settings,
  SessionInfo,
  SettingsPatch,
  SourceToolFlag as DefinitionFlag,
  StatsRange,
  StatsReport,
  StoredMessage,
  TermMatch,
  TimeBucket,
  ToolInfo,
  ToolList,
  ToolMatch,
  ToolMatchHow,
  ToolOffer,
  ToolOfferReason,
  ToolSearchAnswer,
  ToolStats,
} from '../../../server/contract';

/** Server-Sent Events of `GET /events`, by event name. */
export type GatewayEvents = StreamEvents;

/**
 * An API call's failure as the page handles it: the gateway's envelope error, or one the page names itself when the
 * gateway gave none (GATEWAY_UNREACHABLE, BAD_RESPONSE, HTTP_<status>).
 */
export interface GatewayErrorBody extends Omit<ErrorBody, 'name' | 'details'> {
  name: string;
  details?: ErrorBody['details'];
}
