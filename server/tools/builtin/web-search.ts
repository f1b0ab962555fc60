import { ToolError } from '../../errors.js';
import type { PincerConfig } from '../../config/config.js';
import type { NetGuard } from '../../security/net.js';
import { parseUntrustedJson } from '../../util/json.js';
import { defineTool } from '../types.js';

interface WebSearchArgs {
  query: string;
  max_results?: number;
}

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

const DEFAULT_RESULTS = 5;
const MAX_RESULTS = 20;
const SEARCH_TIMEOUT_MS = 15_000;
const SEARCH_MAX_BYTES = 2 * 1024 * 1024;

const SETUP_HINT =
  'The owner can set one in config.json, e.g. "web_search": {"provider": "searxng", "base_url": "http://127.0.0.1:8888"} ' +
  '(a SearXNG instance with the json format enabled in its settings.yml); a provider on this machine or the local network ' +
  'must also be listed in "http_allow" (e.g. "http_allow": ["127.0.0.1"]), because searches go through the same network guard as http_get.';

export function createWebSearchTool(net: NetGuard, provider: PincerConfig['webSearch']) {
  return defineTool<WebSearchArgs, { query: string; provider: string; results: SearchResult[] }>({
    name: 'web_search',
    description:
      'Search the web and return the top results as { query, provider, results: [{ title, url, snippet }] }. Use it to ' +
      'find pages, then read one with http_get. Works only when the owner has configured a search provider ' +
      '(SearXNG); otherwise it answers WEB_SEARCH_NOT_CONFIGURED.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 500, description: 'What to search for, as you would type it into a search engine.' },
        max_results: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_RESULTS,
          default: DEFAULT_RESULTS,
          description: `How many results to return (default ${DEFAULT_RESULTS}, at most ${MAX_RESULTS}).`,
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        provider: { type: 'string' },
        results: {
          type: 'array',
          items: { type: 'object', properties: { title: { type: 'string' }, url: { type: 'string' }, snippet: { type: 'string' } }, required: ['title', 'url', 'snippet'] },
        },
      },
      required: ['query', 'provider', 'results'],
    },
    category: 'network',
    risk: 'sensitive',
    annotations: {
      title: 'Web search',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    },
    timeoutMs: SEARCH_TIMEOUT_MS + 5_000,
    // An assistant often repeats a search within one task; the same query answers from the cache for a while
    // instead of asking the provider again. Read-only and idempotent, so a cached answer changes nothing.
    cache: { ttl_s: 300 },
    handler: async ({ query, max_results }, ctx) => {
      if (!provider) throw new ToolError('WEB_SEARCH_NOT_CONFIGURED', `web_search has no search provider configured. ${SETUP_HINT}`);
      const limit = Math.min(MAX_RESULTS, Math.max(1, Math.floor(max_results ?? DEFAULT_RESULTS)));
      const url = new URL(`${provider.baseUrl.replace(/\/+$/, '')}/search`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      let response;
      try {
        response = await net.fetch(url, {
          method: 'GET',
          headers: { accept: 'application/json' },
          signal: ctx.signal,
          maxBytes: SEARCH_MAX_BYTES,
          timeoutMs: SEARCH_TIMEOUT_MS,
        });
      } catch (error) {
        if (error instanceof ToolError && error.errorName === 'URL_BLOCKED') {
          throw new ToolError('URL_BLOCKED', `The search provider cannot be reached: ${error.message} ${SETUP_HINT}`, error.details);
        }
        throw error;
      }
      if (response.status !== 200) {
        const hint = response.status === 403 ? ' SearXNG answers 403 when the json format is not enabled: add "json" to search.formats in its settings.yml.' : '';
        throw new ToolError('WEB_SEARCH_FAILED', `The search provider answered HTTP ${response.status}.${hint}`, { status: response.status });
      }
      let data: unknown;
      try {
        data = parseUntrustedJson(response.body.toString('utf8'), 64, 'The search provider\'s answer');
      } catch (error) {
        throw new ToolError('WEB_SEARCH_FAILED', `The search provider did not answer JSON (${(error as Error).message}).`);
      }
      const raw = (data as { results?: unknown } | null)?.results;
      if (!Array.isArray(raw)) throw new ToolError('WEB_SEARCH_FAILED', 'The search provider\'s answer has no "results" list.');
      const results: SearchResult[] = [];
      for (const item of raw) {
        if (results.length >= limit) break;
        const entry = item as { title?: unknown; url?: unknown; content?: unknown } | null;
        if (!entry || typeof entry.url !== 'string') continue;
        results.push({
          title: text(entry.title, 300),
          url: entry.url.slice(0, 2000),
          snippet: text(entry.content, 1000),
        });
      }
      return { query, provider: provider.provider, results };
    },
  });
}

function text(value: unknown, max: number): string {
  return typeof value === 'string' ? value.replace(/\s+/g, ' ').trim().slice(0, max) : '';
}
