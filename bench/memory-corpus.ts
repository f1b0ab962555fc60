/**
 * The memory benchmark's text: real English and Chinese sentences from what ships in node_modules, mixed into
 * memories deterministically from a seed, plus a small labelled retrieval set planted among them.
 *
 * - English: the READMEs of the installed packages (node_modules/<pkg>/README.md and node_modules/@scope/<pkg>/…,
 *   code blocks, links and markup stripped) and the doc comments of TypeScript's DOM and ES library typings and of
 *   @types/node (descriptions from MDN and the Node documentation).
 * - Chinese: TypeScript's Simplified Chinese diagnostic messages (typescript/lib/zh-cn), whose `{0}` placeholders are
 *   filled with identifiers taken from the English text, so some memories mix the two as users' notes do.
 * Both come from the project's own (locked) dependencies, so the corpus is the same wherever `npm ci` ran.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** mulberry32: a small, fast, seedable PRNG (deterministic across machines). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

export interface Sentences {
  english: string[];
  chinese: string[];
  /** Identifier-like words of the English text (file names, versions, dotted and snake names). */
  identifiers: string[];
  sources: { readmes: number; typings: number; chineseFile: string };
}

function readIf(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** README.md of every top-level and scoped package, sorted by path. */
function readmeFiles(modules: string): string[] {
  const files: string[] = [];
  const entries = readdirSync(modules).sort();
  for (const name of entries) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) {
      let inner: string[] = [];
      try {
        inner = readdirSync(join(modules, name)).sort();
      } catch {
        continue;
      }
      for (const pkg of inner) files.push(join(modules, name, pkg, 'README.md'));
    } else files.push(join(modules, name, 'README.md'));
  }
  return files.filter((f) => existsSync(f));
}

function typingFiles(modules: string): string[] {
  const files = ['typescript/lib/lib.dom.d.ts', 'typescript/lib/lib.es5.d.ts'].map((f) => join(modules, f));
  const node = join(modules, '@types', 'node');
  try {
    for (const name of readdirSync(node).sort()) if (name.endsWith('.d.ts')) files.push(join(node, name));
  } catch {
    // no @types/node: the other sources suffice
  }
  return files.filter((f) => existsSync(f));
}

function markdownProse(text: string): string[] {
  const body = text
    .replace(/```[\s\S]*?```/g, '\n\n')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>\n]+>/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/https?:\/\/\S+/g, ' ');
  const paragraphs: string[] = [];
  let current: string[] = [];
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.includes('|') || /^[-=*_]{3,}$/.test(line) || /^ {4}/.test(raw)) {
      if (current.length) paragraphs.push(current.join(' '));
      current = [];
      continue;
    }
    current.push(line.replace(/^([-*+]|\d+\.)\s+/, ''));
  }
  if (current.length) paragraphs.push(current.join(' '));
  return paragraphs;
}

function docCommentProse(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(/\/\*\*([\s\S]*?)\*\//g)) {
    const lines = match[1]!
      .split('\n')
      .map((l) => l.replace(/^\s*\*\s?/, '').trim())
      .filter((l) => l !== '' && !l.startsWith('@') && !l.startsWith('```') && !l.includes('MDN Reference'));
    if (lines.length) out.push(lines.join(' ').replace(/\{@link\s+([^}|]+)(?:\|[^}]*)?\}/g, '$1').replace(/https?:\/\/\S+/g, ' '));
  }
  return out;
}

const SENTENCE_SPLIT = /(?<=[.!?])\s+(?=[A-Z`"(])/;

function sentencesOf(paragraph: string): string[] {
  return paragraph
    .replace(/\s+/g, ' ')
    .split(SENTENCE_SPLIT)
    .map((s) => s.replace(/[*_]{2,}/g, '').replace(/`/g, '').trim())
    .filter((s) => {
      const words = s.split(' ').length;
      if (words < 5 || words > 45 || s.length > 320) return false;
      const letters = (s.match(/\p{L}/gu) ?? []).length;
      return letters / s.replace(/\s/g, '').length >= 0.75;
    });
}

/** Loads the sentence pools from node_modules (under `root`). */
export function loadSentences(root: string): Sentences {
  const modules = join(root, 'node_modules');
  const seen = new Set<string>();
  const english: string[] = [];
  const add = (s: string) => {
    if (!seen.has(s)) {
      seen.add(s);
      english.push(s);
    }
  };
  const readmes = readmeFiles(modules);
  for (const file of readmes) for (const p of markdownProse(readIf(file))) sentencesOf(p).forEach(add);
  const typings = typingFiles(modules);
  for (const file of typings) for (const p of docCommentProse(readIf(file))) sentencesOf(p).forEach(add);

  const identifiers = [
    ...new Set(
      english.flatMap((s) => s.match(/\b[A-Za-z][\w-]*(?:[._][\w-]+)+\b|\bv?\d+\.\d+(?:\.\d+)?\b/g) ?? []).filter((w) => w.length >= 4 && w.length <= 40),
    ),
  ].sort();

  const chineseFile = 'typescript/lib/zh-cn/diagnosticMessages.generated.json';
  let chinese: string[] = [];
  try {
    const messages = Object.values(JSON.parse(readFileSync(join(modules, chineseFile), 'utf8')) as Record<string, string>);
    chinese = [...new Set(messages.flatMap((m) => m.split(/(?<=[。！？])/).map((s) => s.trim())).filter((s) => /\p{Script=Han}{4}/u.test(s)))];
  } catch {
    // handled below
  }
  if (english.length < 1000) throw new Error(`memory bench: only ${english.length} English sentences found under node_modules`);
  if (chinese.length < 500) throw new Error(`memory bench: only ${chinese.length} Chinese sentences found in ${chineseFile}`);
  return { english, chinese, identifiers, sources: { readmes: readmes.length, typings: typings.length, chineseFile } };
}

export interface CorpusMemory {
  content: string;
  tags: string[];
  category: string | null;
}

const TAGS = ['work', 'home', 'ideas', 'reading', 'todo', 'infra', '工作', '生活'];
const CATEGORIES = ['note', 'fact', 'preference', 'task'];

/**
 * The memory at position `index` of the corpus for `seed`: a function of (seed, index) only, so the 10,000
 * memories are the first 10,000 of the 100,000. About 60 % English (one to three sentences), 25 % Chinese (one to
 * three messages, placeholders filled with identifiers), 15 % an English sentence next to a Chinese one.
 */
export function corpusMemory(pools: Sentences, seed: number, index: number): CorpusMemory {
  const random = rng((seed * 0x9e3779b1) ^ (index * 0x85ebca6b) ^ 0x5bd1e995);
  const fill = (s: string) => s.replace(/\{\d+\}/g, () => pick(random, pools.identifiers));
  const englishRun = (n: number) => {
    const start = Math.floor(random() * pools.english.length);
    return Array.from({ length: n }, (_, i) => pools.english[(start + i) % pools.english.length]!).join(' ');
  };
  const chineseRun = (n: number) => Array.from({ length: n }, () => fill(pick(random, pools.chinese))).join('');
  const roll = random();
  const n = 1 + Math.floor(random() * 3);
  let content: string;
  if (roll < 0.6) content = englishRun(n);
  else if (roll < 0.85) content = chineseRun(n);
  else content = random() < 0.5 ? `${englishRun(1)} ${chineseRun(1)}` : `${chineseRun(1)} ${englishRun(1)}`;
  const tags = random() < 0.3 ? [pick(random, TAGS)] : [];
  const category = random() < 0.2 ? pick(random, CATEGORIES) : null;
  return { content, tags, category };
}

// ---------- the labelled retrieval set ----------

export type QueryKind = 'typo' | 'multi-word' | 'identifier' | 'chinese' | 'chinese-typo' | 'mixed';
export const QUERY_KINDS: readonly QueryKind[] = ['typo', 'multi-word', 'identifier', 'chinese', 'chinese-typo', 'mixed'];

/** The memories the labelled queries are about, planted in the corpus (keys name them). */
export const TARGETS: Record<string, string> = {
  k8s: "Staging Kubernetes cluster keeps evicting the Postgres pods; raise the memory limit to 4 GiB before Friday's release.",
  dentist: 'My dentist appointment moved to Thursday 9:30 at the clinic on Baker Street; bring the insurance card.',
  grandma: "Grandma's birthday is on the fourth of July, order peonies from the florist two days ahead.",
  venv: 'Python virtual environments for each project live in the .venv folder; never commit that folder.',
  moutai: 'The quarterly report for Kweichow Moutai sh600519 shows revenue up 18 percent year on year.',
  parser: 'Upgrade the markdown parser to v2.3.1: it fixes the crash on nested blockquotes.',
  tsconfig: 'Set compilerOptions.target to ES2022 in tsconfig.build.json before publishing the package.',
  wifi: 'The Wi-Fi password for the guest network at the cabin is written under the router: lakeside-7741.',
  coffee: 'Alice prefers dark roast espresso with oat milk and no sugar.',
  ramen: 'Restaurant tip: the ramen place near Shibuya station serves the best tonkotsu broth in town.',
  deploykey: 'The deploy key for the billing-service repository rotates every 90 days; the next rotation is due in March.',
  openssl: 'ERR_OSSL_EVP_UNSUPPORTED appears when building the old webpack 4 project on Node 18; pass --openssl-legacy-provider.',
  meeting: '明天下午三点在三号会议室讨论明年的市场预算，记得带上笔记本电脑。',
  maotai: '贵州茅台的股价今天上涨了百分之三，成交量明显放大。',
  tea: '妈妈喜欢喝西湖龙井茶，春节回家的时候买两盒带给她。',
  summerpalace: '周末去颐和园划船，如果下雨就改去国家博物馆看展览。',
  annual: '公司年会定在一月十八号，地点是望京的凯悦酒店。',
  phone: '小王的电话号码换了，新号码存在通讯录的同事分组里。',
  running: '每天早上七点跑步五公里，膝盖疼的时候改成游泳。',
  backup: '服务器的数据库备份每天凌晨两点执行，保留三十天。',
  docker: '周五之前把 Docker 镜像推送到私有仓库，标签用 release-2024.06。',
  redis: 'Redis 缓存的过期时间设置为 3600 秒，key 的前缀是 session_user。',
  graphql: '下周一和 Bob 开会讨论 GraphQL API 的分页设计。',
  pnpm: '用 pnpm 安装依赖比 npm 快很多，尤其是在 monorepo 里。',
};

/** Near misses planted too: they share words with some queries but are not what those queries are about. */
export const DISTRACTORS: readonly string[] = [
  'The Postgres backup job on the staging server failed twice last week.',
  'Book a table at the Italian restaurant near the station for Saturday night.',
  'Upgrade Node to v20.11.1 on the build server and rerun the pipeline.',
  'The quarterly report template lives in the shared drive under finance.',
  'Python 3.12 removed distutils; the old virtual machine image still uses it.',
  '贵州的天气这几天一直下雨，出门记得带伞。',
  '三号会议室的投影仪坏了，已经报修。',
  '明天把数据库的索引重建一下，顺便检查慢查询。',
  'Docker 镜像太大了，需要精简基础镜像。',
  '国家博物馆周一闭馆，周二再去。',
  '妈妈的生日在十月，记得提前订蛋糕。',
];

export interface LabelledQuery {
  kind: QueryKind;
  query: string;
  /** Key of TARGETS. */
  want: string;
}

export const LABELLED: readonly LabelledQuery[] = [
  { kind: 'typo', query: 'kubernetse postgress memory', want: 'k8s' },
  { kind: 'typo', query: 'dentsit apointment', want: 'dentist' },
  { kind: 'typo', query: 'grandmas birthday peonis', want: 'grandma' },
  { kind: 'typo', query: 'pyhton virtual enviroments', want: 'venv' },
  { kind: 'typo', query: 'expresso oat milk', want: 'coffee' },
  { kind: 'typo', query: 'restuarant ramen tonkotsu', want: 'ramen' },
  { kind: 'typo', query: 'tonkatsu brtoh', want: 'ramen' },
  { kind: 'typo', query: 'dark roast expreso', want: 'coffee' },
  { kind: 'multi-word', query: 'ramen near station', want: 'ramen' },
  { kind: 'multi-word', query: 'guest wifi password cabin', want: 'wifi' },
  { kind: 'multi-word', query: 'deploy key rotation billing', want: 'deploykey' },
  { kind: 'multi-word', query: 'quarterly report revenue Moutai', want: 'moutai' },
  { kind: 'multi-word', query: 'virtual environments folder commit', want: 'venv' },
  { kind: 'multi-word', query: 'webpack build fails on Node 18', want: 'openssl' },
  { kind: 'identifier', query: 'sh600519', want: 'moutai' },
  { kind: 'identifier', query: 'v2.3.1', want: 'parser' },
  { kind: 'identifier', query: 'tsconfig.build.json', want: 'tsconfig' },
  { kind: 'identifier', query: 'ERR_OSSL_EVP_UNSUPPORTED', want: 'openssl' },
  { kind: 'identifier', query: 'lakeside-7741', want: 'wifi' },
  { kind: 'identifier', query: 'release-2024.06', want: 'docker' },
  { kind: 'chinese', query: '茅台股价', want: 'maotai' },
  { kind: 'chinese', query: '会议室讨论预算', want: 'meeting' },
  { kind: 'chinese', query: '西湖龙井', want: 'tea' },
  { kind: 'chinese', query: '颐和园划船', want: 'summerpalace' },
  { kind: 'chinese', query: '数据库备份', want: 'backup' },
  { kind: 'chinese', query: '年会地点', want: 'annual' },
  { kind: 'chinese-typo', query: '贵州茅抬股价', want: 'maotai' },
  { kind: 'chinese-typo', query: '西湖龙景茶', want: 'tea' },
  { kind: 'chinese-typo', query: '颐和圆划船', want: 'summerpalace' },
  { kind: 'chinese-typo', query: '每天跑布五公里', want: 'running' },
  { kind: 'chinese-typo', query: '通讯路同事分组', want: 'phone' },
  { kind: 'chinese-typo', query: '数据库备分', want: 'backup' },
  { kind: 'chinese-typo', query: '凯越酒店年会', want: 'annual' },
  { kind: 'chinese-typo', query: '膝盖疼改成游永', want: 'running' },
  { kind: 'mixed', query: 'Docker 镜像 标签', want: 'docker' },
  { kind: 'mixed', query: 'Redis 过期时间', want: 'redis' },
  { kind: 'mixed', query: 'Bob GraphQL 分页', want: 'graphql' },
  { kind: 'mixed', query: 'pnpm 安装依赖', want: 'pnpm' },
  { kind: 'mixed', query: 'session_user 前缀', want: 'redis' },
  { kind: 'mixed', query: '下周一 Bob 开会', want: 'graphql' },
];

/** Where the planted memories go: spread over the first `within` positions, the same for every seed. */
export function plantedPositions(within: number): Map<number, string> {
  const texts = [...Object.values(TARGETS), ...DISTRACTORS];
  const step = Math.floor(within / (texts.length + 1));
  return new Map(texts.map((text, i) => [step * (i + 1) - 1 - (i % 7), text]));
}

/**
 * Latency queries as users type them: one to three neighbouring words of a random memory (English, stop words
 * and all), or two to five characters of a Chinese one; a third of the English ones with two letters swapped.
 */
export function sampleQueries(memoryAt: (index: number) => string, size: number, count: number, seed: number, exclude: ReadonlySet<string> = new Set()): string[] {
  const random = rng(seed ^ 0x2545f491);
  const out: string[] = [];
  // Distinct queries, none of them a labelled one: each is timed once, keyed by its text.
  const push = (query: string) => {
    if (!exclude.has(query) && !out.includes(query)) out.push(query);
  };
  while (out.length < count) {
    const text = memoryAt(Math.floor(random() * size));
    const han = text.match(/\p{Script=Han}{5,}/gu);
    if (han && random() < 0.35) {
      const run = pick(random, han);
      const length = 2 + Math.floor(random() * 4);
      const start = Math.floor(random() * Math.max(1, run.length - length));
      push(run.slice(start, start + length));
      continue;
    }
    const words = text.match(/[A-Za-z][\w.-]*[A-Za-z0-9]|[A-Za-z]/g);
    if (!words || words.length < 3) continue;
    const n = 1 + Math.floor(random() * 3);
    const start = Math.floor(random() * (words.length - n));
    const chosen = words.slice(start, start + n);
    if (random() < 0.33) {
      const i = chosen.findIndex((w) => w.length >= 5);
      if (i >= 0) {
        const w = chosen[i]!;
        const at = 1 + Math.floor(random() * (w.length - 3));
        chosen[i] = w.slice(0, at) + w[at + 1] + w[at] + w.slice(at + 2);
      }
    }
    push(chosen.join(' '));
  }
  return out;
}
