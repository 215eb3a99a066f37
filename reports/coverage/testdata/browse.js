// Drives coverage.html in headless Chromium for e2e_test.go:
//   node browse.js PLAYWRIGHT_DIR CHROMIUM HTML_PATH FAILING_ANCHOR DEEP_ANCHOR SHOT_DIR
// and prints one JSON object of what it saw.
const [pwDir, chromium, htmlPath, failing, deep, shots] = process.argv.slice(2);
const { chromium: driver } = require(pwDir + '/node_modules/playwright-core');

(async () => {
  const browser = await driver.launch({
    executablePath: chromium,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  const out = {};
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const base = 'file://' + htmlPath;
    const visible = () => page.$$eval('.anchor', els => els.filter(e => !e.classList.contains('hidden')).map(e => e.id));

    // 1. A deep link lands on its anchor.
    await page.goto(base + '#§' + deep);
    out.deep = await page.evaluate(() => {
      const t = document.querySelector(':target');
      if (!t) return null;
      const r = t.getBoundingClientRect();
      return { id: t.id, inView: r.top >= 0 && r.top < window.innerHeight, hidden: t.classList.contains('hidden') };
    });
    out.shownAll = await page.textContent('#shown');

    // 2. Choosing status=fail filters and writes the filter into the URL.
    await page.goto(base + '#§' + failing);
    await page.selectOption('#fst', 'fail');
    out.urlAfterFilter = page.url();
    out.visibleAfterFilter = await visible();
    out.shownAfterFilter = await page.textContent('#shown');
    out.decisionsShown = await page.$$eval('.anchor:not(.hidden) .decision', els => els.length);
    const card = '[id="§' + failing + '"]';
    out.failing = await page.$eval(card, el => {
      const d = el.querySelector('details.scenario[open]');
      const text = sel => (d && d.querySelector(sel) ? d.querySelector(sel).innerText : null);
      return {
        openScenario: d ? d.querySelector('summary').innerText : null,
        failedStep: text('li.st-failed'),
        replay: text('.replay'),
        strength: el.querySelector('.b-strength') ? el.querySelector('.b-strength').innerText : null,
        survivors: el.querySelector('.survivors summary') ? el.querySelector('.survivors summary').innerText : null,
        promiseCode: el.querySelectorAll('.promise code').length,
      };
    });
    await page.$eval(card, el => el.scrollIntoView());
    await page.screenshot({ path: shots + '/failing-anchor.png' });

    // 3. A filtered URL restores the filters.
    await page.goto(base + '?sys=deck&status=pass');
    out.restored = await page.evaluate(() => ({ sys: document.getElementById('fsys').value, status: document.getElementById('fst').value }));
    out.restoredVisible = await page.$$eval('.anchor', els => els.filter(e => !e.classList.contains('hidden')).map(e => e.dataset.sys + '/' + e.dataset.status));

    // 4. Typing in the text filter narrows and is kept in the URL.
    await page.goto(base);
    await page.fill('#ftext', 'timeout');
    out.urlAfterText = page.url();
    out.visibleAfterText = (await visible()).length;

    // 5. Doc strings render.
    out.docStrings = await page.$$eval('pre.doc', els => els.length);
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(out));
})().catch(e => { console.error(e); process.exit(1); });
