import { isPlainObject } from '../util/json.js';

/**
 * MCP content as a tool result: the blocks an imported MCP server answered (text, image, audio, embedded resource,
 * resource link, with their annotations and `_meta`) and its `structuredContent`. It is a plain JSON value, so the
 * envelope, the cache and history carry it unchanged; each door then gives it the form its format can carry.
 */

type Meta = Record<string, unknown>;

interface BlockExtras {
  annotations?: { audience?: ('user' | 'assistant')[]; priority?: number; lastModified?: string };
  _meta?: Meta;
}

export type ContentBlock = BlockExtras &
  (
    | { type: 'text'; text: string }
    | { type: 'image' | 'audio'; data: string; mimeType: string }
    | { type: 'resource'; resource: { uri: string; mimeType?: string; text?: string; blob?: string; _meta?: Meta } }
    | { type: 'resource_link'; uri: string; name: string; title?: string; description?: string; mimeType?: string; size?: number }
  );

export interface ContentResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  _meta?: Meta;
}

const RESULT_KEYS = new Set(['content', 'structuredContent', '_meta']);

/** Whether `value` is MCP content (every block of a kind MCP defines, with the fields that kind needs). */
export function isContentResult(value: unknown): value is ContentResult {
  if (!isPlainObject(value) || !Array.isArray(value.content)) return false;
  if (!Object.keys(value).every((key) => RESULT_KEYS.has(key))) return false;
  if (value.structuredContent !== undefined && !isPlainObject(value.structuredContent)) return false;
  if (value._meta !== undefined && !isPlainObject(value._meta)) return false;
  return value.content.every(isContentBlock);
}

export function isContentBlock(block: unknown): block is ContentBlock {
  if (!isPlainObject(block)) return false;
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string';
    case 'image':
    case 'audio':
      return typeof block.data === 'string' && typeof block.mimeType === 'string';
    case 'resource':
      return isPlainObject(block.resource) && typeof block.resource.uri === 'string';
    case 'resource_link':
      return typeof block.uri === 'string' && typeof block.name === 'string';
    default:
      return false;
  }
}

/**
 * A tool result made of MCP content, in its simplest lossless form: one plain text block is its string, and text that
 * is exactly the JSON of the `structuredContent` is that object (what Pincer's own tools answer, and what SDK servers
 * write); anything else stays content, block for block.
 */
export function contentResult(result: ContentResult): unknown {
  const { content, structuredContent, _meta } = result;
  if (_meta === undefined) {
    const only = content.length === 1 ? content[0]! : undefined;
    const plain = only?.type === 'text' && only.annotations === undefined && only._meta === undefined ? only.text : undefined;
    if (structuredContent === undefined && plain !== undefined) return plain;
    // An object that itself reads as content would be taken for content by the doors: it stays wrapped.
    if (structuredContent !== undefined && !isContentResult(structuredContent) && (content.length === 0 || plain === JSON.stringify(structuredContent))) {
      return structuredContent;
    }
  }
  return {
    content,
    ...(structuredContent !== undefined && { structuredContent }),
    ...(_meta !== undefined && { _meta }),
  };
}

/**
 * What a model reads of a result (an OpenAI or Ollama tool message is text): text blocks as they are, every other
 * block as a short description with where its bytes are (the call's history entry), never the bytes themselves.
 */
export function forModel(result: unknown, callId: string): unknown {
  if (!isContentResult(result)) return result;
  return {
    content: result.content.map((block, i) => describeBlock(block, `GET /calls/${callId} → result.content[${i}]`)),
    ...(result.structuredContent !== undefined && { structuredContent: result.structuredContent }),
  };
}

function describeBlock(block: ContentBlock, handle: string): unknown {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
    case 'audio':
      return { type: block.type, mimeType: block.mimeType, bytes: base64Bytes(block.data), note: `${block.type} not shown here; its bytes: ${handle}.data` };
    case 'resource': {
      const { uri, mimeType, text, blob } = block.resource;
      if (typeof text === 'string') return { type: 'resource', uri, ...(mimeType !== undefined && { mimeType }), text };
      return {
        type: 'resource',
        uri,
        ...(mimeType !== undefined && { mimeType }),
        bytes: typeof blob === 'string' ? base64Bytes(blob) : 0,
        note: `resource contents not shown here; its bytes: ${handle}.resource.blob`,
      };
    }
    case 'resource_link':
      return {
        type: 'resource_link',
        uri: block.uri,
        name: block.name,
        ...(block.title !== undefined && { title: block.title }),
        ...(block.description !== undefined && { description: block.description }),
        ...(block.mimeType !== undefined && { mimeType: block.mimeType }),
        ...(block.size !== undefined && { size: block.size }),
      };
  }
}

/** The decoded length of base64 text, without decoding it. */
function base64Bytes(data: string): number {
  const trimmed = data.replace(/\s+/g, '');
  const padding = trimmed.endsWith('==') ? 2 : trimmed.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((trimmed.length * 3) / 4) - padding);
}
