import { quotedChoice } from '../errors.js';
import { closestNames } from '../util/closest.js';

/**
 * The names `pincer` answers to, for the "did you mean" of a mistyped command. A command that takes a subcommand
 * lists them; its handler still checks the rest of the line.
 */
const SUBCOMMANDS: Record<string, readonly string[]> = {
  serve: [],
  tools: ['list', 'enable', 'disable'],
  call: [],
  stats: [],
  calls: ['export'],
  memory: ['add', 'search', 'rm', 'export', 'import'],
  plugin: ['new', 'list', 'show', 'accept', 'disable', 'enable', 'rm'],
  plugins: ['new', 'list', 'show', 'accept', 'disable', 'enable', 'rm'],
  mcp: ['config'],
  'mcp-servers': ['list', 'add', 'rm', 'accept', 'disable', 'enable', 'catalog'],
  sources: [],
  chat: [],
  token: ['create', 'list', 'revoke'],
  policy: ['check'],
  'login-url': [],
  doctor: [],
  approvals: ['list', 'allow', 'deny', 'accept', 'decline'],
  rules: ['list', 'add', 'rm'],
  clients: ['list', 'tools', 'budget', 'memories', 'history'],
  roots: ['list', 'add', 'remove'],
  pause: [],
  resume: [],
  help: [],
};

/**
 * What to say of a command line whose command or subcommand is not one `pincer` knows, or undefined when both are
 * known (or the word is an option, where the command's own parser speaks). Asked only once the line has failed, so
 * a name missing here can cost a hint but never refuse a line. Only the first word after the command is checked:
 * options with values may come before the subcommand, and the handler refuses those lines itself.
 */
export function unknownCommand(argv: readonly string[]): string | undefined {
  const [command, sub] = argv;
  if (command === undefined || command.startsWith('-')) return undefined;
  if (!Object.hasOwn(SUBCOMMANDS, command)) {
    return `unknown command "${command}"${suggest(closestNames(command, Object.keys(SUBCOMMANDS), 1))} Run "pincer help" for the list.`;
  }
  const subs = SUBCOMMANDS[command]!;
  if (subs.length === 0 || sub === undefined || sub.startsWith('-') || subs.includes(sub)) return undefined;
  const hint = closestNames(sub, subs, 1).map((s) => `${command} ${s}`);
  return `unknown command "${command} ${sub}"${suggest(hint)} "pincer ${command}" takes ${subs.join(', ')}.`;
}

function suggest(names: readonly string[]): string {
  return names.length > 0 ? `; did you mean ${quotedChoice(names)}?` : '.';
}
