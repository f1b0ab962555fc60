import { forModel, isContentBlock } from '../tools/content.js';
import type { Envelope } from './executor.js';

/**
 * A call's envelope as a model reads it in a tool message (OpenAI and Ollama tool messages are text): MCP content
 * other than text is described, with where its bytes are (the call's history entry), never inlined as base64.
 */
export function envelopeForModel(envelope: Envelope): Envelope {
  if (envelope.success) return { ...envelope, result: forModel(envelope.result, envelope.call_id) };
  const blocks = envelope.error.details.content;
  if (!Array.isArray(blocks) || !blocks.every(isContentBlock)) return envelope;
  const details = { ...envelope.error.details, ...(forModel({ content: blocks }, envelope.call_id) as object) };
  return { ...envelope, error: { ...envelope.error, details } };
}
