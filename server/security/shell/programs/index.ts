import { type Check } from './check.js';
import { FIND_CHECKS } from './find.js';
import { GIT_CHECKS } from './git.js';
import { NETWORK_CHECKS } from './network.js';
import { PACKAGE_CHECKS } from './packages.js';
import { READER_CHECKS } from './readers.js';
import { SHELL_BUILTIN_CHECKS } from './shell-builtins.js';
import { STREAM_EDITOR_CHECKS } from './stream-editors.js';
import { SYSTEM_CHECKS } from './system.js';

/**
 * What Pincer knows about programs: which only read (and with which options), which run other commands, which
 * are interpreters. Anything not named here is unknown, and unknown asks. Each family of programs has its file;
 * this one assembles the read-only table from them.
 */

/** Read-only programs and how their arguments are checked; a program belongs to one family only. */
const READ_ONLY = new Map<string, Check>([
  ...READER_CHECKS,
  ...GIT_CHECKS,
  ...FIND_CHECKS,
  ...STREAM_EDITOR_CHECKS,
  ...SHELL_BUILTIN_CHECKS,
  ...SYSTEM_CHECKS,
  ...NETWORK_CHECKS,
  ...PACKAGE_CHECKS,
]);

/** A read-only program's check, if the program is on the list. */
export function readOnlyCheck(program: string): Check | undefined {
  return READ_ONLY.get(program);
}
