import { flagOf } from '../../memory/flags.js';

/** Why an imported tool's definition reads as instructions aimed at the model rather than a description. */
export interface DefinitionFlag {
  rule: string;
  reason: string;
  /** Where it was found: `description`, or the schema path of a property's description. */
  where: string;
}

/**
 * Security: tool poisoning. An MCP server's tool descriptions (and the descriptions inside its schema) go to the
 * model as text it trusts; the attacks published against MCP in 2025 hide instructions there — an `<IMPORTANT>`
 * block telling the model to read `~/.ssh/id_rsa` or `mcp.json` and pass it along as an argument, to send data
 * elsewhere, to keep quiet about it, or to shadow another server's tools. Such a definition is flagged and its tool
 * stays off until the owner has read it and accepted it. Plain regular expressions, linear in the text's length.
 */
const RULES: readonly { rule: string; reason: string; test: RegExp }[] = [
  {
    rule: 'hidden-block',
    reason: 'holds a tag-wrapped block of instructions (<IMPORTANT>, <system>, <instructions>…) addressed to the model',
    test: /<\s*\/?\s*(?:important|system|instructions?|secret|hidden|admin|critical|note_to_(?:ai|assistant|model))\b[^>]{0,40}>/i,
  },
  {
    rule: 'secret-read',
    reason: 'asks for keys, credentials or configuration files to be read',
    test: /(?:~\/)?\.ssh\b|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\.aws\/credentials|\bmcp\.json\b|\.env\b|\bprivate[ _-]?keys?\b|\bapi[ _-]?keys?\b[^.\n]{0,40}\b(?:read|pass|send|include|provide)|\b(?:read|cat|open)\b[^.\n]{0,40}\b(?:passwords?|credentials|secrets?|tokens?)\b/i,
  },
  {
    rule: 'model-directive',
    reason: 'gives the model orders about other tools or the conversation (before/after using this tool, instead of, always/never…)',
    test: /\b(?:before|after|prior to)\s+(?:using|calling|invoking)\s+(?:this|any|the)\b[^.\n]{0,20}\btool|\bwhen(?:ever)?\s+(?:the\s+)?(?:user|assistant|model)\s+(?:asks|calls|uses)\b[^.\n]{0,60}\b(?:instead|must|always)\b|\b(?:the|this)\s+(?:assistant|model|ai)\s+(?:must|should|has to)\b|\byou\s+(?:must|have to)\s+(?:first|always|never)\b/i,
  },
  {
    rule: 'side-channel',
    reason: 'asks for data to be passed along in an argument such as a "sidenote" or "note"',
    test: /\b(?:pass|put|include|add|append|send)\b[^.\n]{0,60}\b(?:as|in|into|to)\s+(?:the\s+)?["'`]?(?:sidenote|side_note|note|notes|metadata|context|feedback)["'`]?\s*(?:parameter|argument|field)?\b/i,
  },
  {
    rule: 'concealment',
    reason: 'asks the model to keep something from the user',
    test: /\b(?:do not|don'?t|never)\s+(?:tell|mention|inform|reveal|show|notify)\b[^.\n]{0,40}\b(?:user|human|person)\b|\b(?:without|not)\s+(?:telling|informing|alerting)\s+the\s+user\b/i,
  },
  {
    rule: 'invisible-text',
    reason: 'contains invisible characters (zero-width, Unicode tag or bidirectional controls) that can hide text from a reader',
    test: /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/u,
  },
];

/** The flags of one tool's definition: its description and every description in its input schema. */
export function flagDefinition(description: string, inputSchema: unknown): DefinitionFlag[] {
  const texts: { where: string; text: string }[] = [{ where: 'description', text: description }];
  collectDescriptions(inputSchema, 'inputSchema', texts, 0);
  const flags: DefinitionFlag[] = [];
  for (const { where, text } of texts) {
    for (const { rule, reason, test } of RULES) if (test.test(text)) flags.push({ rule, reason, where });
    const memoryLike = flagOf(text);
    if (memoryLike && !flags.some((f) => f.where === where && f.rule === memoryLike.rule)) flags.push({ ...memoryLike, where });
  }
  return flags;
}

function collectDescriptions(node: unknown, path: string, into: { where: string; text: string }[], depth: number): void {
  if (depth > 12 || !node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    const at = `${path}.${key}`;
    if ((key === 'description' || key === 'title') && typeof value === 'string') into.push({ where: at, text: value });
    else collectDescriptions(value, at, into, depth + 1);
  }
}
