import { deepseek } from './deepseek.js';
import { fencedJson } from './fenced-json.js';
import { gemmaToolCode } from './gemma-tool-code.js';
import { glm } from './glm.js';
import { hermes } from './hermes.js';
import { lfm2 } from './lfm2.js';
import { llamaFunctionTag } from './llama-function-tag.js';
import { llamaJson } from './llama-json.js';
import { llamaPythonTag } from './llama-python-tag.js';
import { mistral } from './mistral.js';
import { openaiText } from './openai-text.js';
import { pythonic } from './pythonic.js';
import { qwen3Coder } from './qwen3-coder.js';
import { toolCallToken } from './tool-call-token.js';
import type { ShapeParser } from './shape.js';

export type { ShapeMatch, ShapeParser } from './shape.js';

/**
 * Every family's parser. The order breaks ties between matches covering the same region (the markup-delimited
 * shapes first, the bare ones last).
 */
export const SHAPE_PARSERS: readonly ShapeParser[] = [
  hermes,
  qwen3Coder,
  glm,
  llamaFunctionTag,
  llamaPythonTag,
  lfm2,
  toolCallToken,
  mistral,
  deepseek,
  gemmaToolCode,
  openaiText,
  fencedJson,
  pythonic,
  llamaJson,
];
