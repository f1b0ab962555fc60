/**
 * Credential formats recognised by their prefix, wherever they stand in a string. The list follows secretlint's
 * recommended rules (AWS, GitHub, GitLab, Slack, npm, OpenAI, Anthropic, Stripe, SendGrid, Shopify, Grafana, Hugging
 * Face, Groq, Linear, Notion, 1Password, Vault, Vercel, Databricks, Docker, Figma, Cloudflare, Tailscale) and adds what
 * they miss: bare AWS key IDs, `sk-` / `sk-proj-` keys without OpenAI's marker, Google API keys, Pincer's own tokens.
 *
 * Each shape is a literal prefix and one class of body characters: the scanner consumes the whole run of body
 * characters after the prefix and then checks its length and look here, so no input makes the scan slower than one
 * pass.
 */
export interface TokenShape {
  /** What the owner would call it (used in tests and docs/security.md). */
  name: string;
  /** The literal prefixes it starts with. */
  prefixes: readonly string[];
  /** Character class (source) of the body after the prefix. */
  body: string;
  min: number;
  max?: number;
  /** Extra check on the body, for shapes whose prefix is also found in ordinary words. */
  check?: (body: string) => boolean;
  /** Documentation examples, allowed only when the whole token is exactly one of them. */
  examples?: readonly string[];
}

/** Random-looking: letters mixed with digits, or both letter cases. Rules out kebab-case words ("sk-fading-circle"). */
export function looksRandom(text: string): boolean {
  const digit = /\d/.test(text);
  const lower = /[a-z]/.test(text);
  const upper = /[A-Z]/.test(text);
  return (digit && (lower || upper)) || (lower && upper);
}

const hasDigit = (text: string) => /\d/.test(text);

export const TOKEN_SHAPES: readonly TokenShape[] = [
  // OpenAI (legacy, sk-proj-, sk-svcacct-, sk-admin-), Anthropic (sk-ant-api03-…) and the many APIs copying them.
  { name: 'OpenAI or Anthropic API key', prefixes: ['sk-'], body: '[A-Za-z0-9_-]', min: 20, check: looksRandom },
  { name: 'GitHub token', prefixes: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], body: '[A-Za-z0-9_]', min: 36, max: 255 },
  { name: 'GitHub fine-grained token', prefixes: ['github_pat_'], body: '[A-Za-z0-9_]', min: 22, max: 255 },
  { name: 'GitLab token', prefixes: ['glpat-', 'gldt-', 'glrt-', 'glptt-', 'glsoat-', 'glcbt-', 'glimt-', 'glft-', 'glagent-', 'gloas-', 'glffct-'], body: '[A-Za-z0-9_-]', min: 20, max: 255 },
  { name: 'Slack token', prefixes: ['xoxa-', 'xoxb-', 'xoxp-', 'xoxo-', 'xoxs-', 'xoxr-', 'xoxe-', 'xapp-'], body: '[A-Za-z0-9-]', min: 10, max: 255, check: hasDigit },
  {
    name: 'AWS access key ID',
    prefixes: ['AKIA', 'ASIA', 'ABIA', 'ACCA'],
    body: '[A-Z2-7]',
    min: 16,
    max: 16,
    examples: ['AKIAIOSFODNN7EXAMPLE'],
  },
  { name: 'Google API key', prefixes: ['AIza'], body: '[0-9A-Za-z_-]', min: 35, max: 35 },
  { name: 'Stripe key', prefixes: ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_'], body: '[A-Za-z0-9]', min: 16, max: 255 },
  { name: 'Stripe webhook secret', prefixes: ['whsec_'], body: '[A-Za-z0-9]', min: 24, max: 255 },
  { name: 'npm token', prefixes: ['npm_'], body: '[A-Za-z0-9]', min: 36, max: 36 },
  // generateToken() in server/auth: "pk_" and 32 random bytes in base64url.
  { name: 'Pincer client token', prefixes: ['pk_'], body: '[A-Za-z0-9_-]', min: 43, max: 43 },
  { name: 'SendGrid key', prefixes: ['SG.'], body: '[A-Za-z0-9_.-]', min: 40, max: 255, check: (b) => /^[\w-]{16,32}\.[\w-]{16,64}$/.test(b) },
  { name: 'Shopify token', prefixes: ['shpat_', 'shpca_', 'shppa_', 'shpss_'], body: '[a-fA-F0-9]', min: 32, max: 64 },
  { name: 'Grafana token', prefixes: ['glc_', 'glsa_'], body: '[A-Za-z0-9_+/=]', min: 32, max: 400 },
  { name: 'Hugging Face token', prefixes: ['hf_'], body: '[A-Za-z0-9]', min: 34, max: 64, check: looksRandom },
  { name: 'Groq key', prefixes: ['gsk_'], body: '[A-Za-z0-9]', min: 52, max: 52 },
  { name: 'Linear key', prefixes: ['lin_api_', 'lin_oauth_'], body: '[A-Za-z0-9]', min: 32, max: 128 },
  { name: 'Notion token', prefixes: ['ntn_'], body: '[A-Za-z0-9]', min: 46, max: 46 },
  { name: '1Password service account token', prefixes: ['ops_ey'], body: '[A-Za-z0-9+/=]', min: 100, max: 1280 },
  { name: 'HashiCorp Vault token', prefixes: ['hvs.', 'hvb.', 'hvr.'], body: '[A-Za-z0-9_-]', min: 90, max: 300 },
  { name: 'Vercel token', prefixes: ['vcp_', 'vci_', 'vck_', 'vca_', 'vcr_'], body: '[A-Za-z0-9]', min: 20, max: 60, check: looksRandom },
  { name: 'Databricks token', prefixes: ['dapi'], body: '[a-f0-9]', min: 32, max: 32 },
  { name: 'Docker token', prefixes: ['dckr_pat_'], body: '[A-Za-z0-9_-]', min: 27, max: 27 },
  { name: 'Figma token', prefixes: ['figd_'], body: '[A-Za-z0-9_-]', min: 40, max: 200 },
  { name: 'Cloudflare token', prefixes: ['cfk_', 'cfut_', 'cfat_'], body: '[A-Za-z0-9]', min: 48, max: 48 },
  { name: 'Tailscale key', prefixes: ['tskey-'], body: '[A-Za-z0-9_-]', min: 30, max: 120 },
  { name: 'DigitalOcean token', prefixes: ['doo_v1_', 'dop_v1_', 'dor_v1_'], body: '[a-f0-9]', min: 64, max: 64 },
  { name: 'age secret key', prefixes: ['AGE-SECRET-KEY-1'], body: '[0-9A-Z]', min: 50, max: 70 },
];
