import type { PolicyDecision } from '../../decision.js';
import type { Sweep } from './words.js';

/** What a command (or a part of a line) does, as far as the checks that span commands need to know. */
export interface Facts {
  /** What secret it reads, if any. */
  readsSecret?: string;
  dumpsEnv: boolean;
  network: boolean;
  rawSocket: boolean;
  /** A shell, an interpreter or a program whose name is only known at run time. */
  shellLike: boolean;
  devTcp: boolean;
  fifo: boolean;
  /** Names a folder that holds Pincer's data (`find ~`): harmless alone, not when the names are then opened. */
  mentionsProtected: boolean;
  /** Opens files named by its input (`xargs cat`, `while read f; do cat "$f"; done`). */
  consumesNames: boolean;
  /** xargs: runs its command on the names it reads from standard input. */
  namesOnInput?: boolean;
  /** What it prints, when the text alone says (`echo …`, `cat <<EOF`), for a shell further down a pipe. */
  output?: string;
  /** The trees whose file names it prints (`find ~`), for `xargs rm` further down a pipe. */
  lists?: Sweep[];
}

export function noFacts(): Facts {
  return {
    dumpsEnv: false,
    network: false,
    rawSocket: false,
    shellLike: false,
    devTcp: false,
    fifo: false,
    mentionsProtected: false,
    consumesNames: false,
  };
}

export function merge(into: Facts, from: Facts): Facts {
  into.readsSecret ??= from.readsSecret;
  into.dumpsEnv ||= from.dumpsEnv;
  into.network ||= from.network;
  into.rawSocket ||= from.rawSocket;
  into.shellLike ||= from.shellLike;
  into.devTcp ||= from.devTcp;
  into.fifo ||= from.fifo;
  into.mentionsProtected ||= from.mentionsProtected;
  into.consumesNames ||= from.consumesNames;
  into.namesOnInput ||= from.namesOnInput;
  if (from.lists?.length) into.lists = [...(into.lists ?? []), ...from.lists];
  return into;
}

/** What a command's standard input holds, as far as the text tells. */
export interface Stdin {
  /** Static text (a here-document, a here-string, a pipe from `echo`). */
  text?: string;
  /** The names of the files under trees (a pipe from `find`). */
  names?: Sweep[];
}

/** The verdict on a script and what it does. */
export interface Result {
  decision: PolicyDecision;
  facts: Facts;
}
