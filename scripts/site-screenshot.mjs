// A screenshot of a published history's page in headless Chromium, as a reader sees it (the README's pictures):
//   node scripts/site-screenshot.mjs SITE_DIR OUT.png [#b=N] [light|dark] [hover fraction 0-1]
// CHROMIUM names the browser (default Debian's /usr/bin/chromium). Console errors are printed and fail it.
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const [site, out, hash = '', scheme = 'light', hover] = process.argv.slice(2);
if (!site || !out) throw new Error('usage: node scripts/site-screenshot.mjs SITE_DIR OUT.png [#b=N] [light|dark] [hover 0-1]');
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox'],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: Number(process.env.HEIGHT ?? 900), deviceScaleFactor: 1 });
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
  const errors = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`file://${path.resolve(site, 'index.html')}${hash}`);
  await page.waitForSelector(hash ? '.chart canvas' : 'table.overview tbody tr');
  if (hover !== undefined) {
    const box = await (await page.$('.chart .u-over')).boundingBox();
    await page.mouse.move(box.x + box.width * Number(hover), box.y + box.height / 2);
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  await page.screenshot({ path: out });
  if (errors.length) throw new Error(`the page said: ${errors.join('\n')}`);
} finally {
  await browser.close();
}
