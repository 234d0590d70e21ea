// `node scripts/icon.mjs`: media/icon.png, the 128×128 Marketplace icon, drawn from media/baton.svg (the activity
// bar's line drawing) on a rounded tile, rendered by the Chromium the tests use, so no image tool is needed.
// The PNG is committed; run this again after changing baton.svg or the colours below.
import { readFileSync, writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const SIZE = 128;
// Also galleryBanner.color in package.json: the icon sits on the banner.
const TILE = '#1b3a5c';
const STROKE = '#ffffff';

const source = readFileSync('media/baton.svg', 'utf8');
const inner = source.match(/<svg[^>]*>([\s\S]*)<\/svg>/)?.[1];
const viewBox = source.match(/viewBox="([^"]+)"/)?.[1];
if (!inner || viewBox !== '0 0 24 24') throw new Error('media/baton.svg is not the 24×24 line drawing this script expects');

// The 24-unit drawing scaled into the tile with a margin; the stroke keeps its proportion to the drawing.
const margin = 20;
const scale = (SIZE - 2 * margin) / 24;
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}">
<rect width="${SIZE}" height="${SIZE}" rx="24" fill="${TILE}"/>
<g transform="translate(${margin} ${margin}) scale(${scale})" fill="none" stroke="${STROKE}" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round">${inner}</g>
</svg>`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE }, deviceScaleFactor: 1 });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  const png = await page.locator('svg').screenshot({ omitBackground: true });
  writeFileSync('media/icon.png', png);
  console.log(`media/icon.png: ${SIZE}×${SIZE}, ${png.length} bytes`);
} finally {
  await browser.close();
}
