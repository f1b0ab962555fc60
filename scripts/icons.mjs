#!/usr/bin/env node
// Renders assets/icon.svg to the app icon and the tray icons with the system's Chromium (never a downloaded one):
//   assets/icon.png                 512 × 512, the app icon electron-builder turns into each platform's format
//   assets/tray/<state>.png         16 × 16, and <state>@2x.png 32 × 32 (Electron picks @2x on HiDPI screens)
// The tray states: running (the claw in red), paused (greyed), pending (an amber dot: approvals are waiting).
// Run it after changing icon.svg, and commit the PNGs: `node scripts/icons.mjs`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT } from './desktop/electron.mjs';

const CHROMIUM = process.env.PINCER_CHROMIUM ?? '/usr/bin/chromium';
const ASSETS = join(ROOT, 'assets');

/** The tray icon of each state: the colour of the claw, and whether it carries the pending dot. */
export const TRAY_STATES = {
  running: { fill: '#e5482f', dot: false },
  paused: { fill: '#8d949c', dot: false },
  pending: { fill: '#e5482f', dot: true },
};

/**
 * The tray icon's SVG: icon.svg's #claw group on a transparent 64 × 64 box, in one flat colour; the pending dot sits
 * in the lower right with a transparent ring around it, so it stands out on light and dark panels alike.
 * @param {string} clawMarkup the <g id="claw">…</g> element
 * @param {{ fill: string, dot: boolean }} state
 * @returns {string}
 */
export function traySvg(clawMarkup, { fill, dot }) {
  const claw = clawMarkup.replace(/\sfill="[^"]*"/, ` fill="${fill}"`);
  const ring = dot ? '<mask id="ring"><rect width="64" height="64" fill="#fff"/><circle cx="50" cy="50" r="15" fill="#000"/></mask>' : '';
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">',
    ring,
    `<g${dot ? ' mask="url(#ring)"' : ''}>${claw}</g>`,
    dot ? '<circle cx="50" cy="50" r="11" fill="#ffb020"/>' : '',
    '</svg>',
  ].join('');
}

/**
 * The <g id="claw"> element of icon.svg (it holds no nested <g>).
 * @param {string} iconSvg
 * @returns {string}
 */
export function clawOf(iconSvg) {
  const match = /<g id="claw"[^>]*>[\s\S]*?<\/g>/.exec(iconSvg);
  if (!match) throw new Error('assets/icon.svg has no <g id="claw"> group');
  return match[0];
}

/**
 * Renders one SVG to a PNG of `size` CSS pixels at `scale`, with a transparent background.
 * @param {import('playwright-core').Browser} browser
 * @param {string} svg
 * @param {number} size
 * @param {number} scale
 * @returns {Promise<Buffer>}
 */
async function render(browser, svg, size, scale) {
  const context = await browser.newContext({ viewport: { width: 600, height: 600 }, deviceScaleFactor: scale });
  try {
    const page = await context.newPage();
    const sized = svg.replace('<svg ', `<svg width="${size}" height="${size}" `);
    await page.setContent(`<!doctype html><html><body style="margin:0;background:transparent">${sized}</body></html>`);
    return await page.locator('svg').first().screenshot({ omitBackground: true });
  } finally {
    await context.close();
  }
}

async function main() {
  const iconSvg = readFileSync(join(ASSETS, 'icon.svg'), 'utf8');
  const claw = clawOf(iconSvg);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    writeFileSync(join(ASSETS, 'icon.png'), await render(browser, iconSvg, 512, 1));
    mkdirSync(join(ASSETS, 'tray'), { recursive: true });
    for (const [name, state] of Object.entries(TRAY_STATES)) {
      const svg = traySvg(claw, state);
      writeFileSync(join(ASSETS, 'tray', `${name}.png`), await render(browser, svg, 16, 1));
      writeFileSync(join(ASSETS, 'tray', `${name}@2x.png`), await render(browser, svg, 16, 2));
    }
  } finally {
    await browser.close();
  }
  console.log('Wrote assets/icon.png and assets/tray/{running,paused,pending}{,@2x}.png');
}

if (process.argv[1] && import.meta.filename === process.argv[1]) await main();
