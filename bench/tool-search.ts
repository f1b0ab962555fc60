/**
 * Tool search bar: a search over 2,000 tools takes at most 5 ms at the median. Synthetic tool catalogues (servers
 * of tools named `<server>__<verb>_<noun>`, descriptions and parameters of real English words drawn from WordNet's
 * word lists, common words more often) of 120 and 2,000 tools are indexed, and the same requests — words of a tool
 * as a person might type them, some with a typo, and plain requests — are run through the index and, as the
 * baseline in the same run, through a linear scan that substring-matches every query word against every tool's
 * name and description. Also timed: the index catching up when a server with 50 tools appears (a ratio to one scan).
 * Run alone with `node dist/bench/tool-search.js [--queries N]`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ToolIndex, type IndexedTool } from '../server/tools/search/tool-index.js';
import { defaultWordNetDir, WordNet } from '../server/tools/search/wordnet.js';
import { percentile, summarize, type LatencySummary, type Verdict } from './common.js';
import { rng as seededRandom } from './memory-corpus.js';

export const TOOL_SEARCH_BAR_MS = 5;
const SIZES = [120, 2000] as const;
const NEW_SERVER_TOOLS = 50;

export interface ToolSearchSize {
  tools: number;
  /** Building the index from nothing (WordNet look-ups included). */
  buildMs: number;
  search: LatencySummary;
  scan: LatencySummary;
  /** Milliseconds; LatencySummary has no p95. */
  searchP95: number;
  scanP95: number;
  /** Search p50 and p95 over the scan's. */
  p50Ratio: number;
  p95Ratio: number;
  /** `update` with a new server of 50 tools beside the others. */
  newServerMs: number;
  /** That over one scan's p50. */
  newServerRatio: number;
}

export interface ToolSearchBenchResult {
  queries: number;
  wordnet: boolean;
  sizes: ToolSearchSize[];
}

interface Words {
  verbs: string[];
  nouns: string[];
  adjectives: string[];
}

const FALLBACK: Words = {
  verbs: 'get list create update delete search send read write find open close move copy run fetch add remove set show'.split(' '),
  nouns: 'file folder issue message channel user table record branch commit page image note event task project report query key value entry item'.split(' '),
  adjectives: 'new old open closed recent public private large small remote local current'.split(' '),
};

/** WordNet's single-word lemmas that occur in text (tagged senses), the most frequent first. */
function englishWords(): Words {
  const dir = defaultWordNetDir();
  if (!dir) return FALLBACK;
  const read = (pos: string) => {
    try {
      const entries: [string, number][] = [];
      for (const line of readFileSync(join(dir, `index.${pos}`), 'latin1').split('\n')) {
        if (line.startsWith(' ') || line === '') continue;
        const fields = line.split(' ');
        const lemma = fields[0]!;
        if (!/^[a-z]{3,12}$/.test(lemma)) continue;
        const tagged = Number(fields[5 + Number(fields[3])]);
        if (tagged > 0) entries.push([lemma, tagged]);
      }
      return entries.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([lemma]) => lemma);
    } catch {
      return [];
    }
  };
  const words = { verbs: read('verb'), nouns: read('noun'), adjectives: read('adj') };
  return words.verbs.length > 0 && words.nouns.length > 0 ? words : FALLBACK;
}

/** A word from `list`, the first (most frequent) far more often. */
function pick(list: readonly string[], rng: () => number, skew = 2.5): string {
  return list[Math.floor(list.length * rng() ** skew)]!;
}

function sentence(words: Words, rng: () => number, length: number): string {
  const out: string[] = [];
  for (let i = 0; i < length; i++) {
    const r = rng();
    out.push(r < 0.5 ? pick(words.nouns, rng) : r < 0.8 ? pick(words.verbs, rng) : pick(words.adjectives, rng));
    if (rng() < 0.25) out.push(['the', 'a', 'of', 'to', 'in', 'with', 'for', 'and'][Math.floor(rng() * 8)]!);
  }
  const text = out.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

/** `count` tools of servers of about 25 tools each. */
export function syntheticTools(count: number, seed: number, words: Words = englishWords()): IndexedTool[] {
  const rng = seededRandom(seed);
  const tools: IndexedTool[] = [];
  let server = '';
  const names = new Set<string>();
  while (tools.length < count) {
    if (tools.length % 25 === 0) server = `${pick(words.nouns, rng, 1.5)}${tools.length}`;
    const verb = pick(words.verbs, rng, 3);
    const noun = pick(words.nouns, rng, 2);
    const name = `${server}__${verb}_${noun}${rng() < 0.3 ? `_${pick(words.nouns, rng)}` : ''}`;
    if (names.has(name)) continue;
    names.add(name);
    const properties: Record<string, unknown> = {};
    const parameterCount = 1 + Math.floor(rng() * 4);
    for (let p = 0; p < parameterCount; p++) {
      properties[`${pick(words.nouns, rng)}${rng() < 0.3 ? `_${pick(words.nouns, rng)}` : ''}`] = {
        type: rng() < 0.7 ? 'string' : 'integer',
        description: sentence(words, rng, 3 + Math.floor(rng() * 6)),
      };
    }
    tools.push({
      name,
      title: `${verb[0]!.toUpperCase()}${verb.slice(1)} ${noun}`,
      description: `${verb[0]!.toUpperCase()}${verb.slice(1)} the ${noun} of a ${pick(words.nouns, rng)} in ${server}. ${sentence(words, rng, 6 + Math.floor(rng() * 20))}${rng() < 0.3 ? ` ${sentence(words, rng, 10)}` : ''}`,
      source: `mcp:${server}`,
      risk: 'sensitive',
      parameters: { type: 'object', properties, required: Object.keys(properties).slice(0, 1) },
    });
  }
  return tools;
}

const PLAIN_REQUESTS = [
  'what time is it in Sydney',
  'how high above sea level is Denver?',
  'delete the branch feature-x',
  'search the web for rust tutorials',
  'send a message to the team channel',
  'list the files in my project folder',
  'open an issue about the login bug',
  'take a screenshot of the page',
  'remember that my favourite colour is green',
  'run the tests',
  'delte the old reprot',
  '查一下上证指数',
];

/** Requests: words of the tools as a person would type them (a fifth with a typo), and plain requests. */
function requests(tools: readonly IndexedTool[], count: number, seed: number): string[] {
  const rng = seededRandom(seed);
  const out: string[] = [];
  while (out.length < count) {
    if (rng() < 0.2) {
      out.push(PLAIN_REQUESTS[Math.floor(rng() * PLAIN_REQUESTS.length)]!);
      continue;
    }
    const tool = tools[Math.floor(rng() * tools.length)]!;
    const words = `${tool.name.split('__')[1]!.replaceAll('_', ' ')} ${tool.description}`.toLowerCase().match(/[a-z]{3,}/g) ?? [];
    const chosen = Array.from({ length: 2 + Math.floor(rng() * 4) }, () => words[Math.floor(rng() * words.length)]!);
    if (rng() < 0.2 && chosen[0]!.length > 4) {
      const w = chosen[0]!;
      const at = 1 + Math.floor(rng() * (w.length - 2));
      chosen[0] = `${w.slice(0, at)}${w[at + 1]}${w[at]}${w.slice(at + 2)}`;
    }
    out.push(chosen.join(' '));
  }
  return out;
}

/** The baseline: every query word substring-matched against every tool's name and description, best 10 kept. */
class LinearScan {
  readonly #texts: { name: string; text: string }[];
  constructor(tools: readonly IndexedTool[]) {
    this.#texts = tools.map((tool) => ({ name: tool.name, text: `${tool.name} ${tool.description}`.toLowerCase() }));
  }
  search(query: string, limit: number): string[] {
    const words = query.toLowerCase().split(/\s+/).filter((w) => w.length > 0);
    const hits: { name: string; count: number }[] = [];
    for (const { name, text } of this.#texts) {
      let count = 0;
      for (const word of words) if (text.includes(word)) count++;
      if (count > 0) hits.push({ name, count });
    }
    return hits
      .sort((a, b) => b.count - a.count)
      .slice(0, limit)
      .map((hit) => hit.name);
  }
}

function timeEach(queries: readonly string[], run: (query: string) => number): number[] {
  let sink = 0;
  for (const query of queries.slice(0, Math.min(50, queries.length))) sink += run(query); // warm-up
  const times: number[] = [];
  for (const query of queries) {
    const t0 = performance.now();
    sink += run(query);
    times.push(performance.now() - t0);
  }
  if (sink < 0) throw new Error('unreachable');
  return times;
}

const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

export function benchToolSearch(queryCount = 500): ToolSearchBenchResult {
  const words = englishWords();
  const sizes: ToolSearchSize[] = [];
  let wordnet = false;
  for (const size of SIZES) {
    const tools = syntheticTools(size, size);
    const queries = requests(tools, queryCount, size + 1);
    // Each size with a WordNet of its own: no look-up is served from an earlier size's cache.
    const dictionary = WordNet.open();
    wordnet = dictionary !== null;
    const index = new ToolIndex({ wordnet: dictionary });
    const t0 = performance.now();
    index.update(tools);
    const buildMs = performance.now() - t0;
    const scan = new LinearScan(tools);
    // Interleaved halves, so a burst of other load hits both sides alike.
    const searchTimes: number[] = [];
    const scanTimes: number[] = [];
    const half = Math.ceil(queries.length / 2);
    for (const part of [queries.slice(0, half), queries.slice(half)]) {
      searchTimes.push(...timeEach(part, (q) => index.search(q, { limit: 10 }).length));
      scanTimes.push(...timeEach(part, (q) => scan.search(q, 10).length));
    }
    const search = summarize(searchTimes);
    const scanSummary = summarize(scanTimes);
    const server = syntheticTools(NEW_SERVER_TOOLS, size + 7, words).map((tool) => ({ ...tool, name: `fresh${tool.name}`, source: `mcp:fresh${tool.source.slice(4)}` }));
    const t1 = performance.now();
    index.update([...tools, ...server]);
    const newServerMs = performance.now() - t1;
    const searchP95 = percentile(Float64Array.from(searchTimes).sort(), 0.95);
    const scanP95 = percentile(Float64Array.from(scanTimes).sort(), 0.95);
    sizes.push({
      tools: size,
      buildMs: round(buildMs, 1),
      search,
      scan: scanSummary,
      searchP95,
      scanP95,
      p50Ratio: round(search.p50 / scanSummary.p50, 2),
      p95Ratio: round(searchP95 / scanP95, 2),
      newServerMs: round(newServerMs, 1),
      newServerRatio: round(newServerMs / scanSummary.p50, 1),
    });
  }
  return { queries: queryCount, wordnet, sizes };
}

export function toolSearchLines(result: ToolSearchBenchResult): string[] {
  const lines = [
    `Tool search: ${result.queries} requests per catalogue (words of its tools, a fifth with a typo, and plain requests), limit 10${result.wordnet ? '' : ' — WordNet missing: no synonyms'}; baseline = linear substring scan of names and descriptions`,
  ];
  for (const s of result.sizes) {
    lines.push(
      `  ${String(s.tools).padStart(5)} tools: search p50 ${s.search.p50.toFixed(3)} ms, p95 ${s.searchP95.toFixed(3)} ms (${s.p50Ratio}× / ${s.p95Ratio}× the scan's ${s.scan.p50.toFixed(3)} / ${s.scanP95.toFixed(3)} ms) · build ${s.buildMs} ms · a new server of ${NEW_SERVER_TOOLS} tools ${s.newServerMs} ms (${s.newServerRatio}× one scan p50)`,
    );
  }
  return lines;
}

export function toolSearchVerdicts(result: ToolSearchBenchResult): Verdict[] {
  const largest = result.sizes.reduce((a, b) => (b.tools > a.tools ? b : a));
  const p50 = round(largest.search.p50, 3);
  return [
    {
      name: 'tool_search_p50_ms_2000_tools',
      value: p50,
      bar: `<= ${TOOL_SEARCH_BAR_MS} ms`,
      ok: p50 <= TOOL_SEARCH_BAR_MS,
      text: `Tool search p50 at ${largest.tools} tools = ${p50.toFixed(3)} ms, ${largest.p50Ratio}× a linear scan (bar ≤ ${TOOL_SEARCH_BAR_MS} ms)`,
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { queries: { type: 'string' } } });
  const result = benchToolSearch(Number(values.queries ?? 500));
  const lines = [...toolSearchLines(result), ...toolSearchVerdicts(result).map((v) => `${v.ok ? 'MET' : 'MISSED'}  ${v.text}`)];
  process.stdout.write(`${lines.join('\n')}\n`);
}
