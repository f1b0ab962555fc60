import { parseUntrustedJson } from './json.js';

/**
 * A tool call's arguments as a model or client sent them: OpenAI sends a JSON string, Ollama an object; both come
 * out as a value to validate. Text that is not JSON comes back with `error` set, so the call is refused with a
 * message the model can act on rather than run with no arguments.
 */
export function decodeArguments(raw: unknown, maxDepth: number): { value: unknown; error?: string } {
  if (raw === undefined || raw === null || raw === '') return { value: {} };
  if (typeof raw !== 'string') return { value: raw };
  try {
    return { value: parseUntrustedJson(raw, maxDepth, 'arguments') };
  } catch (error) {
    return { value: raw, error: `${(error as Error).message} Send arguments as a JSON object.` };
  }
}
