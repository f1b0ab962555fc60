import { describe, expect, it } from 'vitest';
import type { PluginPermissions } from '../../../../server/contract/sources.js';
import { confined, filesInWords, newPluginCommand, permissionLines, sizeInWords } from '../../../../renderer/src/views/sources/plugin-words.js';

const NONE: PluginPermissions = { hosts: [], read: [], write: [], childProcess: false, workers: false, addons: false };

describe('permissionLines', () => {
  it('a plugin that asks for nothing reads its own folder only', () => {
    expect(permissionLines(NONE)).toEqual([{ label: 'Reads files', values: [{ text: 'its own folder', literal: false }] }]);
    expect(confined(NONE)).toBe(true);
  });

  it('lists hosts, paths and what it may run, hosts and paths as literals', () => {
    const lines = permissionLines({ hosts: ['hq.sinajs.cn'], read: ['/srv/data'], write: ['/tmp/out'], childProcess: true, workers: false, addons: true });
    expect(lines.map((l) => l.label)).toEqual(['Reaches hosts', 'Reads files', 'Writes files', 'Runs code']);
    expect(lines[0]!.values).toEqual([{ text: 'hq.sinajs.cn', literal: true }]);
    expect(lines[1]!.values.map((v) => v.text)).toEqual(['its own folder', '/srv/data']);
    expect(lines[3]!.values.map((v) => v.text)).toEqual(['starts processes', 'loads native addons']);
  });

  it('any one permission is enough not to be confined', () => {
    expect(confined({ ...NONE, hosts: ['a.example'] })).toBe(false);
    expect(confined({ ...NONE, workers: true })).toBe(false);
  });
});

describe('newPluginCommand', () => {
  it('needs no data folder for the default one, nor before the folder is known', () => {
    expect(newPluginCommand('/home/me/.pincer/plugins')).toBe('pincer plugin new my-tools');
    expect(newPluginCommand('C:\\Users\\me\\.pincer\\plugins', 'notes')).toBe('pincer plugin new notes');
    expect(newPluginCommand(null)).toBe('pincer plugin new my-tools');
  });

  it('names any other data folder, quoted for the shell when it must be', () => {
    expect(newPluginCommand('/srv/pincer/plugins')).toBe('pincer plugin new my-tools --data-dir /srv/pincer');
    expect(newPluginCommand('/home/me/My Data/plugins/')).toBe("pincer plugin new my-tools --data-dir '/home/me/My Data'");
    expect(newPluginCommand("/tmp/it's/plugins")).toBe("pincer plugin new my-tools --data-dir '/tmp/it'\\''s'");
  });
});

describe('sizeInWords and filesInWords', () => {
  it('reads sizes in bytes, then KB and MB', () => {
    expect(sizeInWords(0)).toBe('0 B');
    expect(sizeInWords(812)).toBe('812 B');
    expect(sizeInWords(4300)).toBe('4.2 KB');
    expect(sizeInWords(42_646)).toBe('42 KB');
    expect(sizeInWords(12 * 1024 * 1024)).toBe('12 MB');
    expect(sizeInWords(-1)).toBe('—');
  });

  it('counts the files in words', () => {
    expect(filesInWords(1, 300)).toBe('1 file, 300 B');
    expect(filesInWords(14, 42_646)).toBe('14 files, 42 KB');
  });
});
