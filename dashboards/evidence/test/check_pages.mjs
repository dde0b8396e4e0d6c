// Looks at the built dashboard as a person does: opens every page in headless Chromium, takes a
// full-page screenshot, and checks every panel (an element marked data-panel="SOURCE[.column]" in
// the pages) against what the database holds: a table shows every row of its source (over its
// pages), a value shows the number, a chart or image is drawn; no error box, no browser error.
//   node check_pages.mjs BASE_URL OUT_DIR EXPECTED_JSON
// EXPECTED_JSON: {"rows": {source: row count}, "values": {"source.column": number}}, made by
// dashboards/run.sh from the database as the dashboard's role sees it.
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const [baseUrl, outDir, expectedFile] = process.argv.slice(2);
const expected = JSON.parse(readFileSync(expectedFile, 'utf8'));
const pages = { overview: '/', clusters: '/clusters/', thresholds: '/thresholds/' };
let passed = 0, failed = 0;
const check = (ok, what) => {
    if (ok) passed++; else failed++;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
};

// What one panel shows, read in the page.
function readPanel(el) {
    const kind = el.dataset.kind;
    const box = (e) => { const r = e.getBoundingClientRect(); return r.width > 100 && r.height > 100; };
    // The pager reads "Page [1] / N", the 1 in an input box; hidden copies of a table do not count.
    const pager = el.innerText.match(/Page\s*(?:1\s*)?\/\s*(\d+)/);
    const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    return {
        name: el.dataset.panel, kind,
        text: el.innerText,
        rows: [...el.querySelectorAll('tr')].filter((tr) => tr.querySelector('td') && shown(tr)).length,
        pages: pager ? Number(pager[1]) : 1,
        drawn: kind === 'chart' ? [...el.querySelectorAll('canvas, svg')].some(box)
             : kind === 'image' ? [...el.querySelectorAll('img')].some((i) => i.naturalWidth > 0 && box(i)) : false,
        errors: el.querySelectorAll('.bg-red-50').length
    };
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
    for (const [name, path] of Object.entries(pages)) {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        const browserErrors = [];
        page.on('pageerror', (e) => browserErrors.push(e.message));
        page.on('console', (m) => { if (m.type() === 'error') browserErrors.push(m.text()); });
        await page.goto(baseUrl + path, { waitUntil: 'networkidle' });
        // Panels fill in as DuckDB (in the page) answers: wait until every one shows something.
        await page.waitForFunction(() => [...document.querySelectorAll('[data-panel]')].every((el) =>
            el.querySelector('tr td, canvas, img, .bg-red-50') || /\d/.test(el.innerText)), null, { timeout: 60000 })
            .catch(() => {});
        await page.waitForTimeout(1500);   // charts finish their animation
        await page.screenshot({ path: `${outDir}/${name}.png`, fullPage: true });
        const panels = await page.$$eval('[data-panel]', (els, fn) => els.map(new Function(`return ${fn}`)()), readPanel.toString());
        check(panels.length > 0, `${name}: ${panels.length} panels`);
        check(await page.locator('.bg-red-50').count() === 0, `${name}: no error box`);
        check(browserErrors.length === 0, `${name}: no browser error${browserErrors.length ? ': ' + browserErrors.join(' | ') : ''}`);
        for (const p of panels) {
            const [source] = p.name.split('.');
            const rows = expected.rows[source];
            if (p.kind === 'value') {
                const want = expected.values[p.name];
                const digits = p.text.replace(/[^\d]/g, '');
                check(want !== undefined && digits.endsWith(String(want)), `${name}: ${p.name} shows ${want} (${p.text.replace(/\s+/g, ' ').trim()})`);
            } else if (p.kind === 'table') {
                // A paged table shows a full first page and as many pages as the rows need.
                const ok = p.pages === 1 ? p.rows === rows : p.rows > 0 && p.pages === Math.ceil(rows / p.rows);
                check(rows > 0 && ok, `${name}: table ${p.name} shows its ${rows} rows (${p.rows} on page 1 of ${p.pages})`);
            } else {
                check(rows > 0 && p.drawn && p.errors === 0, `${name}: ${p.kind} ${p.name} drawn from ${rows} rows`);
            }
        }
        await page.close();
    }
} finally {
    await browser.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
