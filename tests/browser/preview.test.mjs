// The preview page in a real browser: Debian's chromium, headless, driven by
// puppeteer-core. Opens the page on the motorcycle with its disparity map,
// moves a slider, clicks the motorcycle, saves, and checks each step; then
// a slow chain: stopped at --time-limit with the page saying so, and giving
// way to a newer state without the page waiting for its end.
// Usage: node preview.test.mjs VKFX SOURCE_ROOT OUT_DIR (the screenshot goes there).
import {spawn, execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [vkfx, root, outDir] = process.argv.slice(2).map(p => path.resolve(p));
const chromium = process.env.VKFX_CHROMIUM || '/usr/bin/chromium';
const image = 'images/motorcycle_left.png';
const map = 'images/motorcycle_disparity16.png';
const chain = 'dof:depth=' + map + ':kind=disparity';
const failures = [];

function check(ok, what) {
  console.log((ok ? 'ok   ' : 'FAIL ') + what);
  if (!ok) failures.push(what);
}
function fatal(message) {
  console.error('preview.test: ' + message);
  process.exit(1);
}

if (!fs.existsSync(chromium))
  fatal(chromium + ' is missing: install chromium (apt-get install chromium), or set ' +
        'VKFX_CHROMIUM to a Chromium binary');
let puppeteer, PNG;
try {
  puppeteer = (await import('puppeteer-core')).default;
  ({PNG} = await import('pngjs'));
} catch (e) {
  fatal('puppeteer-core or pngjs cannot be loaded (' + e.message + '): run ' +
        '(cd ' + here + ' && npm ci) first');
}

// The value dof reads from its map at (x, y): the first channel over 65535,
// as a float; kind=disparity compares focus with 1 - that, in float. pngjs
// gives 16-bit files as RGBA in a Uint16Array.
const depth = PNG.sync.read(fs.readFileSync(path.join(root, map)), {skipRescale: true});
function focusAt(x, y) {
  const v = depth.data[(y * depth.width + x) * 4];
  return Math.fround(1 - Math.fround(v / 65535));
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vkfx-browser-'));
const saved = path.join(tmp, 'saved.png');
// vkfx preview with args, once it has printed its address.
async function startPreview(args) {
  const proc = spawn(vkfx, ['preview', image, ...args, '--no-browser'],
                     {cwd: root, stdio: ['ignore', 'pipe', 'inherit']});
  const exited = new Promise(resolve => proc.on('exit', (code, sig) => resolve({code, sig})));
  const url = await new Promise((resolve, reject) => {
    readline.createInterface({input: proc.stdout}).once('line', resolve);
    proc.on('exit', () => reject(new Error('vkfx preview ended before printing its address')));
  }).catch(e => fatal(e.message));
  return {proc, exited, url};
}
const {proc: server, exited, url} = await startPreview(['-f', chain, '-o', saved]);
check(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{32}$/.test(url), 'address line: ' + url);

let browser;
try {
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  const page = await browser.newPage();
  await page.setViewport({width: 1000, height: 640});
  page.on('pageerror', e => check(false, 'no script error on the page: ' + e.message));
  page.setDefaultTimeout(240000);

  // A render of chain text is on screen, and how many renders the page has shown.
  const shown = () => page.$eval('#view', img => ({
    chain: img.dataset.chain, renders: Number(img.dataset.renders || 0),
    width: Number(img.dataset.width || 0), clientWidth: img.clientWidth,
  }));
  const waitShown = (after, text) => page.waitForFunction(
    (after, text) => {
      const img = document.getElementById('view');
      return Number(img.dataset.renders || 0) > after && (text === null || img.dataset.chain === text);
    }, {}, after, text);
  const picture = async () => (await page.$('#view')).screenshot();
  const commandLine = () => page.$eval('#cmd', el => el.textContent);

  await page.goto(url);
  await waitShown(0, chain);
  let s = await shown();
  check(s.width === s.clientWidth && s.width < 741,
        'fitted to the window and rendered at the size shown (' + s.width + ' px)');
  check(!page.url().includes('token='), 'the token leaves the address bar once the cookie is set');
  const cmd0 = await commandLine();
  check(cmd0 === "vkfx images/motorcycle_left.png -f " + chain + " -o " + saved,
        'the command line: ' + cmd0);
  const pic0 = await picture();

  // Move the maxcoc slider with the mouse.
  const slider = await page.$('input[type=range][data-link="0"][data-opt="maxcoc"]');
  const box = await slider.boundingBox();
  await page.mouse.click(box.x + box.width * 0.8, box.y + box.height / 2);
  await page.waitForFunction(() => document.getElementById('cmd').textContent.includes('maxcoc='));
  const cmd1 = await commandLine();
  const chain1 = cmd1.split(' -f ')[1].split(' -o ')[0];
  await waitShown(s.renders, chain1);
  check(cmd1 !== cmd0 && /maxcoc=\d/.test(cmd1), 'the slider changed the command line: ' + cmd1);
  const pic1 = await picture();
  check(Buffer.compare(pic1, pic0) !== 0, 'the slider changed the picture');

  // Click on the motorcycle: focus becomes the map's value there.
  const [px, py] = [370, 300];
  const rect = await page.$eval('#view', img => {
    const r = img.getBoundingClientRect();
    return {left: r.left, top: r.top, width: r.width, height: r.height};
  });
  s = await shown();
  await page.mouse.click(rect.left + (px + 0.5) * rect.width / 741,
                         rect.top + (py + 0.5) * rect.height / 500);
  await page.waitForFunction(() => document.getElementById('cmd').textContent.includes('focus='));
  const cmd2 = await commandLine();
  const chain2 = cmd2.split(' -f ')[1].split(' -o ')[0];
  await waitShown(s.renders, chain2);
  const focus = /focus=([-+0-9.e]+)/.exec(cmd2)[1];
  // The page names the pixel it took; a CSS pixel is more than one image
  // pixel when the picture is fitted, so it is within one of the aim.
  const status = await page.$eval('#status', el => el.textContent);
  const at = /at \((\d+), (\d+)\)/.exec(status);
  const [qx, qy] = at ? [Number(at[1]), Number(at[2])] : [-9, -9];
  check(Math.abs(qx - px) <= 1 && Math.abs(qy - py) <= 1,
        'the click took the pixel under the pointer: ' + status);
  check(Math.fround(Number(focus)) === focusAt(qx, qy),
        'focus after the click is 1 - disparity at (' + qx + ', ' + qy + '): ' + focus +
        ' vs ' + focusAt(qx, qy));
  const pic2 = await picture();
  check(Buffer.compare(pic2, pic1) !== 0, 'the click changed the picture');

  await page.screenshot({path: path.join(outDir, 'preview.png')});

  // Save, then run the command line shown: the same bytes.
  await page.click('#save');
  await page.waitForFunction(() => document.getElementById('save').dataset.saved === '1');
  const bytes = fs.readFileSync(saved);
  fs.unlinkSync(saved);
  execFileSync('sh', ['-c', cmd2], {
    cwd: root, stdio: 'inherit',
    env: {...process.env, PATH: path.dirname(vkfx) + ':' + process.env.PATH},
  });
  check(Buffer.compare(bytes, fs.readFileSync(saved)) === 0,
        'the saved file is byte-identical to running the displayed command line');

  // A slow chain (many short passes), set as the page's own script would.
  const slow = Array(300).fill('bilateral:radius=12').join(',');
  const setChain = text => page.evaluate(t => { links = parseChain(t); render(); }, text);
  const limited = await startPreview(['--time-limit', '1']);
  try {
    await page.goto(limited.url);
    await waitShown(0, '');
    await setChain(slow);
    await page.waitForFunction(() => document.getElementById('error').textContent !== '');
    const error = await page.$eval('#error', el => el.textContent);
    check(error.includes('took longer than 1 s') && error.includes('--time-limit'),
          'the page shows the render stopped at --time-limit: ' + error);
  } finally {
    limited.proc.kill('SIGTERM');
    await limited.exited;
  }
  const overtaken = await startPreview([]);
  try {
    await page.goto(overtaken.url);
    await waitShown(0, '');
    s = await shown();
    await setChain(slow);
    const t0 = Date.now();
    await setChain('gauss');
    await waitShown(s.renders, 'gauss');
    const took = (Date.now() - t0) / 1000;
    check(took < 30, 'a slow render gives way to a newer state, shown after ' + took + ' s');
  } finally {
    overtaken.proc.kill('SIGTERM');
    await overtaken.exited;
  }
} catch (e) {
  check(false, 'the page works: ' + e.stack);
} finally {
  if (browser) await browser.close();
  server.kill('SIGTERM');
  const {code, sig} = await exited;
  check(code === 0, 'SIGTERM ends vkfx preview with status 0 (got ' + code + ', ' + sig + ')');
  fs.rmSync(tmp, {recursive: true, force: true});
}
if (failures.length) {
  console.log(failures.length + ' check(s) failed');
  process.exit(1);
}
