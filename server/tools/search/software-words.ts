import { stemOf } from './text.js';

/**
 * Words that mean the same in software and that WordNet does not join (it knows `delete` and `erase`, not `delete`
 * and `remove`, nor `repo`, `dir` or `rm`). Each group's words stand for one another as synonyms. Kept short:
 * everything else comes from WordNet.
 */
export const SOFTWARE_SYNONYMS: readonly (readonly string[])[] = [
  // What is done.
  ['delete', 'remove', 'erase', 'rm', 'del', 'discard', 'destroy', 'wipe', 'trash'],
  ['list', 'enumerate', 'ls', 'show'],
  ['get', 'fetch', 'retrieve', 'obtain', 'download', 'grab'],
  ['read', 'view', 'open', 'cat', 'show'],
  ['write', 'save', 'store', 'persist'],
  ['create', 'make', 'new', 'add', 'open'],
  ['search', 'find', 'lookup', 'query', 'locate', 'grep'],
  ['update', 'edit', 'modify', 'change', 'patch', 'alter'],
  ['run', 'execute', 'exec', 'launch', 'invoke'],
  ['send', 'post', 'publish', 'submit'],
  ['move', 'rename', 'mv'],
  ['copy', 'duplicate', 'cp', 'clone'],
  ['upload', 'push'],
  ['compare', 'diff'],
  ['select', 'choose', 'pick'],
  ['close', 'resolve'],
  ['reply', 'respond', 'answer'],
  ['convert', 'translate', 'transform'],
  ['summarize', 'summarise', 'summary'],
  ['calculate', 'calc', 'compute', 'evaluate'],
  ['notify', 'alert', 'notification'],
  ['remember', 'memorize', 'memorise'],
  // What it is done to.
  ['directory', 'folder', 'dir'],
  ['repository', 'repo'],
  ['database', 'db'],
  ['image', 'picture', 'photo', 'screenshot', 'img', 'pic'],
  ['url', 'link', 'webpage', 'website', 'page', 'site'],
  ['message', 'msg', 'dm'],
  ['configuration', 'config', 'settings'],
  ['environment', 'env'],
  ['information', 'info', 'metadata', 'details'],
  ['timezone', 'tz'],
  ['issue', 'ticket', 'bug'],
  ['pr', 'pull_request'],
  ['mr', 'merge_request'],
  ['credentials', 'password', 'token', 'secret'],
  ['command', 'shell', 'terminal', 'cmd'],
  ['script', 'code', 'program'],
  ['location', 'place', 'address'],
];

/** Each software word's group-mates, by stem; a mate of several words (`pull_request`) is written with `_`. */
const MATES: ReadonlyMap<string, readonly string[]> = (() => {
  const mates = new Map<string, Set<string>>();
  for (const group of SOFTWARE_SYNONYMS) {
    for (const word of group) {
      if (word.includes('_')) continue;
      const stem = stemOf(word);
      let set = mates.get(stem);
      if (!set) mates.set(stem, (set = new Set()));
      for (const other of group) if (other !== word) set.add(other);
    }
  }
  return new Map([...mates].map(([stem, set]) => [stem, [...set]]));
})();

/** The words that mean the same in software as the word whose stem is `stem` (software-words.ts). */
export function softwareMates(stem: string): readonly string[] {
  return MATES.get(stem) ?? [];
}
