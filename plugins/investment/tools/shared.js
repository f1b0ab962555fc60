// @ts-check
/** What every tool of this plugin declares alike: they read public market data and change nothing. */

export const CATEGORY = 'finance';

/** Reads public data over the network; asking twice changes nothing. */
export const READS_PUBLIC_DATA = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
});
