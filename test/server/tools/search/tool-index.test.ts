import { describe, expect, it } from 'vitest';
import { syntheticTools } from '../../../../bench/tool-search.js';
import { ToolRegistry } from '../../../../server/tools/registry.js';
import { toolFields, Field } from '../../../../server/tools/search/fields.js';
import { indexedTool, ToolIndex, type IndexedTool } from '../../../../server/tools/search/tool-index.js';
import { namePrefix, splitName, words } from '../../../../server/tools/search/text.js';

function tool(name: string, description: string, extra: Partial<IndexedTool> = {}): IndexedTool {
  return { name, description, source: 'builtin', risk: 'safe', parameters: { type: 'object', properties: {} }, ...extra };
}

const TOOLS: IndexedTool[] = [
  tool('file_delete', 'Delete a file or a folder. Cannot be undone.', { risk: 'dangerous' }),
  tool('file_read', 'Read a text file and return its content.'),
  tool('maps_elevation', 'Get the elevation of points on the earth.', { source: 'mcp:google-maps', title: 'Elevation' }),
  tool('github__create_issue', 'Open a new issue in a repository.', { source: 'mcp:github', risk: 'sensitive' }),
  tool('github__list_commits', 'List the commits of a branch.', { source: 'mcp:github' }),
  tool('puppeteer_screenshot', 'Capture an image of the current page.', { source: 'mcp:puppeteer' }),
  tool('stock_quote', 'Live stock prices (股票行情, 实时股价) for A shares and Hong Kong.', { source: 'plugin:finance' }),
  tool('get_time', 'Tell the current date and time in any time zone.'),
];

function indexOf(tools: readonly IndexedTool[] = TOOLS, options: ConstructorParameters<typeof ToolIndex>[0] = {}): ToolIndex {
  const index = new ToolIndex(options);
  index.update(tools);
  return index;
}

const names = (index: ToolIndex, query: string, limit = 5) => index.search(query, { limit }).map((hit) => hit.name);

describe('tool names and fields', () => {
  it('splits names at underscores, dashes, camelCase and the server prefix', () => {
    expect(splitName('get_pull_request_files')).toEqual(['get', 'pull', 'request', 'files']);
    expect(splitName('github__create_issue')).toEqual(['github', 'create', 'issue']);
    expect(splitName('longRunningOperation')).toEqual(['long', 'running', 'operation']);
    expect(splitName('HTMLParser')).toEqual(['html', 'parser']);
    expect(splitName('get-tiny-image')).toEqual(['get', 'tiny', 'image']);
    expect(splitName('listPRs')).toEqual(['list', 'prs']);
    expect(namePrefix('github__create_issue')).toBe('github');
    expect(namePrefix('create_issue')).toBeUndefined();
  });

  it('indexes the words of a text stemmed, without stop words, numbers or single letters', () => {
    expect(words('Deleting the files of feature-x in 2024').map((w) => [w.surface, w.term])).toEqual([
      ['deleting', 'delet'],
      ['files', 'file'],
      ['feature', 'featur'],
    ]);
    expect(words('今天的股票').map((w) => w.term)).toEqual(['今天', '天的', '的股', '股票']);
  });

  it('reads the name (prefix apart), title, server, both parts of the description and the parameters', () => {
    const fields = toolFields({
      name: 'github__get_pull_request_files',
      title: 'Pull request files',
      description: 'List the files a pull request changes. Paged, at most 100 per page.',
      source: 'mcp:github',
      risk: 'sensitive',
      parameters: {
        type: 'object',
        properties: {
          pull_number: { type: 'number', description: 'The number of the pull request' },
          options: { type: 'object', properties: { perPage: { type: 'integer', description: 'Results per page' } } },
          files: { type: 'array', items: { type: 'object', properties: { path: { type: 'string', description: 'Where it lives' } } } },
          mode: { type: 'string', enum: ['merge', 'squash'] },
        },
      },
    });
    const surfaces = (field: number) => fields[field]!.map((w) => w.surface);
    expect(surfaces(Field.name)).toEqual(['get', 'pull', 'request', 'files']);
    expect(surfaces(Field.source)).toEqual(['github']);
    expect(surfaces(Field.title)).toEqual(['pull', 'request', 'files']);
    expect(surfaces(Field.summary)).toEqual(['list', 'files', 'pull', 'request', 'changes']);
    expect(surfaces(Field.description)).toEqual(['paged', 'per', 'page']);
    expect(surfaces(Field.parameterNames)).toEqual(['pull', 'number', 'options', 'per', 'page', 'files', 'path', 'mode']);
    expect(surfaces(Field.parameterText)).toEqual(expect.arrayContaining(['number', 'results', 'lives', 'merge', 'squash']));
  });

  it('takes a registered tool as it is indexed, the same object each time, its title from its annotations', () => {
    const registry = new ToolRegistry();
    const registered = registry.register({
      name: 'notify',
      description: 'Show a desktop notification.',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
      category: 'desktop',
      risk: 'safe',
      annotations: { title: 'Notify the user' },
      handler: () => null,
    });
    const indexed = indexedTool(registered);
    expect(indexed).toMatchObject({ name: 'notify', title: 'Notify the user', description: 'Show a desktop notification.', source: 'builtin', risk: 'safe' });
    expect(indexedTool(registered)).toBe(indexed);
  });
});

describe('ToolIndex.search', () => {
  const index = indexOf();

  it('finds a tool by the words of its name and description, best first', () => {
    expect(names(index, 'read a file')[0]).toBe('file_read');
    expect(names(index, 'elevation')[0]).toBe('maps_elevation');
    expect(names(index, 'github issue')[0]).toBe('github__create_issue');
  });

  it('meets other forms of a word through its stem', () => {
    const [hit] = index.search('deleting files', { limit: 1 });
    expect(hit!.name).toBe('file_delete');
    expect(hit!.match).toEqual(expect.arrayContaining([{ word: 'deleting', matched: 'delete', how: 'stem' }]));
  });

  it('meets synonyms (software words and WordNet): remove, erase → delete; altitude → elevation', () => {
    for (const query of ['remove the folder', 'erase that file', 'rm report.txt']) {
      const [hit] = index.search(query, { limit: 1 });
      expect(hit!.name, query).toBe('file_delete');
      expect(hit!.match.some((m) => m.matched === 'delete' && m.how === 'synonym'), query).toBe(true);
    }
    const [altitude] = index.search('altitude of Denver', { limit: 1 });
    expect(altitude!.name).toBe('maps_elevation');
    expect(altitude!.match).toEqual([{ word: 'altitude', matched: 'elevation', how: expect.stringMatching(/^(synonym|related)$/) }]);
  });

  it("meets a related word by its base form: `high` reaches elevation, whose definition says `highest`", () => {
    const hit = indexOf().search('how high is it', { limit: 5 }).find((h) => h.name === 'maps_elevation');
    expect(hit?.match).toEqual(expect.arrayContaining([{ word: 'high', matched: 'elevation', how: 'related' }]));
  });

  it('reads a compound the request names as the compound: `level` in `sea level` is not a log level', () => {
    const index = indexOf([...TOOLS, tool('set_log_level', 'Set the level of the log: debug, info, warning or error.')]);
    const score = (query: string, name: string) => index.search(query, { limit: 10 }).find((hit) => hit.name === name)?.score ?? 0;
    expect(score('how far above sea level is Denver', 'set_log_level')).toBeLessThan(score('how far above the level is Denver', 'set_log_level'));
    expect(score('how far above sea level is Denver', 'maps_elevation')).toBeGreaterThan(0);
  });

  it('without WordNet, still finds words, stems, software synonyms and typos', () => {
    const plain = indexOf(TOOLS, { wordnet: null });
    expect(names(plain, 'deleting files')[0]).toBe('file_delete');
    expect(names(plain, 'remove the folder')[0]).toBe('file_delete');
    expect(names(plain, 'delte it')[0]).toBe('file_delete');
    expect(names(plain, 'altitude')).toEqual([]);
  });

  it('corrects typos of words the index knows', () => {
    const [hit] = index.search('delte the file', { limit: 1 });
    expect(hit!.name).toBe('file_delete');
    expect(hit!.match).toEqual(expect.arrayContaining([{ word: 'delte', matched: 'delete', how: 'fuzzy' }]));
    expect(names(index, 'scrennshot of the page')[0]).toBe('puppeteer_screenshot');
    expect(names(index, 'elevaton')[0]).toBe('maps_elevation');
  });

  it('finds Chinese requests among tools with Chinese words (CJK bigrams)', () => {
    for (const query of ['股票行情', '今天的股价是多少', '查一下实时股价']) {
      expect(names(index, query)[0], query).toBe('stock_quote');
    }
    expect(index.search('股票行情', { limit: 1 })[0]!.match).toEqual(expect.arrayContaining([{ word: '票行', matched: '票行', how: 'word' }]));
  });

  it('reads the common words of a Chinese request in English, for tools described in English', () => {
    const [hit] = index.search('删除这个文件', { limit: 1 });
    expect(hit!.name).toBe('file_delete');
    expect(hit!.match).toEqual(expect.arrayContaining([{ word: '删除', matched: 'delete', how: 'synonym' }]));
    expect(names(index, '东京现在几点')[0]).toBe('get_time');
  });

  it('says which query word met which tool term, and how', () => {
    const [hit] = index.search('show the commits on github', { limit: 1 });
    expect(hit).toMatchObject({ name: 'github__list_commits', title: null, source: 'mcp:github', risk: 'safe' });
    expect(hit!.match).toEqual(
      expect.arrayContaining([
        { word: 'commits', matched: 'commits', how: 'word' },
        { word: 'github', matched: 'github', how: 'word' },
        { word: 'show', matched: 'list', how: 'synonym' },
      ]),
    );
    expect(hit!.score).toBeGreaterThan(0);
    const [elevation] = index.search('elevation', { limit: 1 });
    expect(elevation).toMatchObject({ title: 'Elevation', description: 'Get the elevation of points on the earth.' });
  });

  it("answers only the caller's own tools (allowed), still up to the limit", () => {
    const all = names(index, 'file', 10);
    expect(all).toEqual(expect.arrayContaining(['file_delete', 'file_read']));
    const allowed = names(index, 'file', 10).filter((name) => name !== 'file_delete');
    expect(index.search('file', { limit: 10, allowed: (name) => name !== 'file_delete' }).map((h) => h.name)).toEqual(allowed);
    expect(index.search('delete a file', { limit: 1, allowed: (name) => name === 'file_read' }).map((h) => h.name)).toEqual(['file_read']);
    expect(index.search('file', { limit: 10, allowed: () => false })).toEqual([]);
  });

  it('answers nothing for empty, stop-word-only or nonsense requests, and for no limit', () => {
    for (const query of ['', '   ', 'the of and', 'zxqv wpfj', '!!!', '12345', 'x', '🙂']) {
      expect(index.search(query, { limit: 5 }), query).toEqual([]);
    }
    expect(index.search('delete', { limit: 0 })).toEqual([]);
    expect(index.search('delete', { limit: Number.NaN })).toEqual([]);
    expect(index.search('a '.repeat(10_000) + 'delete', { limit: 3 })).toBeInstanceOf(Array);
    expect(new ToolIndex().search('delete', { limit: 5 })).toEqual([]);
  });
});

describe('ToolIndex.update', () => {
  it('adds, replaces and removes tools; a listing of the same tools changes nothing', () => {
    const index = new ToolIndex();
    index.update(TOOLS);
    expect(index.size).toBe(TOOLS.length);
    const before = index.search('take a screenshot', { limit: 3 });
    index.update([...TOOLS]);
    // Another object with the same content (a registry listing again) is kept as it is.
    index.update(TOOLS.map((t) => ({ ...t, parameters: structuredClone(t.parameters) })));
    expect(index.search('take a screenshot', { limit: 3 })).toEqual(before);

    // Replaced: a new description is what is found.
    const changed = TOOLS.map((t) => (t.name === 'get_time' ? { ...t, description: 'Convert a clock time between time zones.' } : t));
    index.update(changed);
    expect(index.size).toBe(TOOLS.length);
    expect(names(index, 'convert clock')[0]).toBe('get_time');
    expect(names(index, 'current date')).not.toContain('get_time');

    // Removed: never found again; its words leave the vocabulary (no typo leads to them).
    index.update(changed.filter((t) => t.name !== 'puppeteer_screenshot'));
    expect(index.size).toBe(TOOLS.length - 1);
    expect(names(index, 'screenshot', 10)).not.toContain('puppeteer_screenshot');
    expect(names(index, 'scrennshot', 10)).toEqual([]);

    index.update([]);
    expect(index.size).toBe(0);
    expect(index.search('file', { limit: 5 })).toEqual([]);
  });

  it('a new risk rating shows in the hits without indexing the tool again', () => {
    const index = indexOf();
    index.update(TOOLS.map((t) => (t.name === 'file_read' ? { ...t, risk: 'sensitive' as const } : t)));
    expect(index.search('read a file', { limit: 1 })[0]).toMatchObject({ name: 'file_read', risk: 'sensitive' });
  });

  it('takes in a server of 50 tools beside the others', () => {
    const base = syntheticTools(120, 1);
    const index = indexOf(base);
    const server = syntheticTools(50, 2).map((t) => ({ ...t, name: `extra${t.name}`, source: 'mcp:extra' }));
    index.update([...base, ...server]);
    expect(index.size).toBe(170);
    const target = server[17]!;
    expect(names(index, target.name.split('__')[1]!.replaceAll('_', ' '), 5)).toContain(target.name);
    index.update(base);
    expect(index.size).toBe(120);
    expect(names(index, target.name.split('__')[1]!.replaceAll('_', ' '), 50)).not.toContain(target.name);
  });

  it('keeps the first of two tools listed with one name', () => {
    const index = indexOf([tool('same', 'Reads a file.'), tool('same', 'Sends an email.')]);
    expect(index.size).toBe(1);
    expect(names(index, 'email')).toEqual([]);
  });

  it('holds 2,000 tools and searches them', () => {
    const tools = syntheticTools(2000, 3);
    const index = indexOf(tools);
    expect(index.size).toBe(2000);
    for (const target of [tools[0]!, tools[999]!, tools[1999]!]) {
      const hits = index.search(`${target.name.split('__')[1]!.replaceAll('_', ' ')} ${target.source.slice(4)}`, { limit: 10 });
      expect(hits.length).toBeLessThanOrEqual(10);
      expect(hits.map((h) => h.name)).toContain(target.name);
    }
    expect(index.search('zxqv wpfj', { limit: 10 })).toEqual([]);
  });
});
