/** Tool search: the index the gateway's `search_tools` answers from. */
export { ToolIndex, type ToolHit, type ToolMatch, type SearchOptions, type ToolIndexOptions } from './tool-index.js';
export type { IndexedTool } from './fields.js';
export { indexedTool } from './indexed-tool.js';
export { WordNet, defaultWordNetDir, type WordRelations } from './wordnet.js';
