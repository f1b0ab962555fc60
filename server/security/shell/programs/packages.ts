import { type Word } from '../words.js';
import { type Check, type CheckResult, dynamicArgument, OK, onlyWords, optionsOnly, problem, short, unsure, verbs } from './check.js';

/** Package managers: listing and showing what is installed reads; everything else installs or runs code. */

const PIP_LISTING = new RegExp(
  String.raw`^(?:-[a-z]|--(?:outdated|uptodate|not-required|user|local|format=\w+|files|verbose|all|exclude-editable|include-editable))$|` +
    String.raw`^[\w.\[\]-]+$`,
);

/** pip only lists, shows or checks what is installed. */
function checkPip(args: Word[], program: string): CheckResult {
  const values = args.map((w) => w.value);
  if (values.length === 1 && (values[0] === '--version' || values[0] === '-V')) return OK;
  const verb = values[0];
  if (verb === undefined || !['list', 'show', 'freeze', 'check'].includes(verb)) {
    return problem('not-read-only', `${program} ${short(args.map((w) => w.text).join(' '))} installs packages or runs code.`);
  }
  for (const word of args.slice(1)) {
    if (unsure(word)) return dynamicArgument(program, word);
    if (!PIP_LISTING.test(word.value!)) {
      return problem('not-read-only', `${program} ${verb} ${short(word.text)} is not a plain listing.`);
    }
  }
  return OK;
}

export const PACKAGE_CHECKS: ReadonlyArray<readonly [string, Check]> = [
  [
    'brew',
    verbs(
      /^(?:list|ls|info|leaves|deps|uses|config|--version|--prefix|--cellar|--repository|search)$/,
      'installs, removes or changes packages',
    ),
  ],
  [
    'dpkg',
    optionsOnly(
      /^(?:-[lLsSp]|--(?:list|listfiles|status|search|print-avail|get-selections|print-architecture)|[\w.+:*][\w.+:*-]*)$/,
      'installs or removes packages',
    ),
  ],
  ['dpkg-query', () => OK],
  ['apt', verbs(/^(?:list|show|search|policy|depends|rdepends)$/, 'installs or removes packages')],
  ['apt-cache', verbs(/^(?:show|showpkg|policy|search|depends|rdepends|pkgnames|stats|madison)$/, 'changes the package cache')],
  [
    'rpm',
    optionsOnly(
      /^(?:-q[ailfdcR]*|--query|--all|--info|--list|--whatprovides|--whatrequires|[\w.+:*][\w.+:*-]*)$/,
      'installs, removes or verifies packages',
    ),
  ],
  [
    'npm',
    onlyWords(
      /^(?:ls|list|ll|la|root|prefix|--version|-v|-g|--global|--all|-a|--depth=\d+|--json|--long|--parseable|-p)$/,
      'installs packages or runs scripts',
    ),
  ],
  ['pip', checkPip],
  ['pip3', checkPip],
];
