import type { PincerConfig } from '../../config/config.js';
import type { NetGuard, UrlVerdict } from '../../security/net.js';
import type { Analyzer } from '../policy.js';
import { allow, ask, type PolicyDecision } from '../../decision.js';

/**
 * Policy for the HTTP tools. The URL is judged by NetGuard (the same check the tool repeats when it connects):
 * whatever it denies is denied. A GET to a public or allowlisted address runs; a POST sends data off the machine,
 * so it asks unless the destination is one the owner listed in http_allow.
 */
export function httpAnalyzers(net: NetGuard, webSearch?: PincerConfig['webSearch']): Record<string, Analyzer> {
  return {
    http_get: async (args) => withHost(await net.checkUrl(args.url)),
    http_post: async (args) => {
      const verdict = await net.checkUrl(args.url);
      const decision = withHost(verdict);
      if (decision.decision !== 'allow' || decision.rule === 'url:allowlisted') return decision;
      // Security: a POST can carry files or secrets the model has read out to any server (exfiltration).
      const host = hostOf(args.url);
      return {
        ...ask(
          'url:post',
          `http_post would send data to ${host}, outside this machine. Approve it if you expect this upload; to let posts to a ` +
            'service you trust run without asking, add its host to "http_allow" in config.json.',
        ),
        subject: decision.subject,
      };
    },
    web_search: () =>
      webSearch
        ? allow('web-search:query', `web_search sends the query to the configured ${webSearch.provider} provider.`)
        : allow('web-search:not-configured', 'No search provider is configured; web_search will only answer that it is not configured.'),
  };
}

/** The verdict with the host it is about, for host rules and the approval's scopes. */
function withHost(verdict: UrlVerdict): PolicyDecision {
  const host = verdict.url?.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return { ...verdict.decision, subject: host ? { host } : {} };
}

function hostOf(url: unknown): string {
  try {
    return new URL(String(url)).host;
  } catch {
    return 'a server';
  }
}
