// The preview page in a real browser: Debian's chromium, headless, driven by
// puppeteer-core. Opens the page on the motorcycle with its disparity map,
// moves a slider, clicks the motorcycle, saves, and checks each step; undoes
// and redoes every kind of change, one with an OpenEXR depth map in metres
// that it writes itself; then a slow chain: stopped at --time-limit with the page saying so, and giving
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

// A depth map in metres as a render writes it: an OpenEXR file with one float channel Z
// (scanline, uncompressed), from the motorcycle's disparity: 1 m where it is largest, 10 m
// where it is 0 (no data).
function writeDepthExr(file, w, h, z) {
  const attr = (name, type, value) => Buffer.concat([Buffer.from(name + '\0' + type + '\0'),
    Buffer.from(new Int32Array([value.length]).buffer), value]);
  const ints = a => Buffer.from(new Int32Array(a).buffer);
  const floats = a => Buffer.from(new Float32Array(a).buffer);
  // Channel Z: FLOAT (2), not linear, x and y sampling 1; the list ends with an empty name.
  const chlist = Buffer.concat([Buffer.from('Z\0'), ints([2, 0, 1, 1]), Buffer.from([0])]);
  const header = Buffer.concat([
    Buffer.from([0x76, 0x2f, 0x31, 0x01]), ints([2]),
    attr('channels', 'chlist', chlist),
    attr('compression', 'compression', Buffer.from([0])),
    attr('dataWindow', 'box2i', ints([0, 0, w - 1, h - 1])),
    attr('displayWindow', 'box2i', ints([0, 0, w - 1, h - 1])),
    attr('lineOrder', 'lineOrder', Buffer.from([0])),
    attr('pixelAspectRatio', 'float', floats([1])),
    attr('screenWindowCenter', 'v2f', floats([0, 0])),
    attr('screenWindowWidth', 'float', floats([1])),
    Buffer.from([0])]);
  const offsets = new BigUint64Array(h);
  const chunks = [];
  for (let y = 0; y < h; y++) {
    offsets[y] = BigInt(header.length + 8 * h + y * (8 + 4 * w));
    chunks.push(ints([y, 4 * w]), floats(z.subarray(y * w, (y + 1) * w)));
  }
  fs.writeFileSync(file, Buffer.concat([header, Buffer.from(offsets.buffer), ...chunks]));
}
const exr = path.join(tmp, 'depth.exr');
const metres = new Float32Array(depth.width * depth.height);
for (let i = 0; i < metres.length; i++)
  metres[i] = 1 + 9 * (1 - depth.data[i * 4] / 65535);
writeDepthExr(exr, depth.width, depth.height, metres);
const [zMin, zMax] = metres.reduce(([lo, hi], z) => [Math.min(lo, z), Math.max(hi, z)],
                                   [Infinity, -Infinity]);
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
  // Absolute paths, so that the copied line works from any folder.
  // The Fast box starts checked (the preview's default), so the line carries --fast.
  check(await page.$eval('#fast', el => el.checked), 'the Fast box starts checked');
  check(cmd0 === 'vkfx ' + path.join(root, image) + ' -f dof:depth=' + path.join(root, map) +
        ':kind=disparity -o ' + saved + ' --fast', 'the command line, paths absolute: ' + cmd0);
  const pic0 = await picture();

  // The picture of the page's current chain, exact (not a draft), after `after` renders.
  const waitCurrent = after => page.waitForFunction(after => {
    const img = document.getElementById('view');
    return Number(img.dataset.renders || 0) > after && img.dataset.chain === chainText(links) &&
      img.dataset.mode === 'exact' && document.body.dataset.busy === '0';
  }, {}, after);
  const chainNow = () => page.evaluate(() => chainText(links));

  // Move the maxcoc slider with the mouse.
  const slider = await page.$('input[type=range][data-link="0"][data-opt="maxcoc"]');
  const box = await slider.boundingBox();
  await page.mouse.click(box.x + box.width * 0.8, box.y + box.height / 2);
  await page.waitForFunction(() => document.getElementById('cmd').textContent.includes('maxcoc='));
  const cmd1 = await commandLine();
  await waitCurrent(s.renders);
  check(cmd1 !== cmd0 && /maxcoc=\d/.test(cmd1), 'the slider changed the command line: ' + cmd1);
  const pic1 = await picture();
  check(Buffer.compare(pic1, pic0) !== 0, 'the slider changed the picture');

  // Point 3: sliders fit the data: focus and range span the 16-bit map's 0..1, maxcoc
  // in pixels.
  const spans = await page.evaluate(() => ['focus', 'range', 'maxcoc'].map(n => {
    const r = document.querySelector('input[type=range][data-link="0"][data-opt="' + n + '"]');
    return [n, Number(r.min), Number(r.max), r.parentNode.querySelector('label').dataset.unit];
  }));
  check(spans[0][1] === 0 && spans[0][2] === 1 && spans[1][1] === 0 && spans[1][2] === 1 &&
        /0\.\.1/.test(spans[0][3]) && spans[2][3] === 'px',
        'focus and range span the map\'s 0..1 with units, maxcoc in px: ' + JSON.stringify(spans));

  // Click on the motorcycle: focus becomes the map's value there.
  const [px, py] = [370, 300];
  const rect = await page.$eval('#view', img => {
    const r = img.getBoundingClientRect();
    return {left: r.left, top: r.top, width: r.width, height: r.height};
  });
  // The same, where the picture stands now (the bar under it grows with messages).
  const clientNow = async (x, y) => {
    const r = await page.$eval('#view', img => {
      const b = img.getBoundingClientRect();
      return {left: b.left, top: b.top, width: b.width, height: b.height};
    });
    return [r.left + (x + 0.5) * r.width / 741, r.top + (y + 0.5) * r.height / 500];
  };
  const client = (x, y) => [rect.left + (x + 0.5) * rect.width / 741,
                            rect.top + (y + 0.5) * rect.height / 500];
  // The depth under the pointer is read out before any click.
  await page.mouse.move(...client(px, py));
  await page.waitForFunction(() => /^depth [0-9.]+ at/.test(
    document.getElementById('readout').textContent));
  check(true, 'the depth under the pointer: ' + await page.$eval('#readout', el => el.textContent));
  s = await shown();
  await page.mouse.click(...client(px, py));
  await page.waitForFunction(() => document.getElementById('cmd').textContent.includes('focus='));
  const cmd2 = await commandLine();
  await waitCurrent(s.renders);
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
  const shows = await page.$eval('#shows', el => el.textContent);
  check(/^exact: the saved file/.test(shows), 'the page says it shows the exact picture: ' + shows);

  await page.screenshot({path: path.join(outDir, 'preview.png')});

  // Save, then run the command line shown (paths absolute) from another folder: the same bytes.
  await page.click('#save');
  await page.waitForFunction(() => document.getElementById('save').dataset.saved === '1');
  const bytes = fs.readFileSync(saved);
  const moved = saved + '.first.png';
  fs.renameSync(saved, moved);
  execFileSync('sh', ['-c', cmd2], {
    cwd: tmp, stdio: 'inherit',
    env: {...process.env, PATH: path.dirname(vkfx) + ':' + process.env.PATH},
  });
  check(Buffer.compare(bytes, fs.readFileSync(saved)) === 0,
        'the saved file is byte-identical to running the displayed command line elsewhere');

  // Point 1: the fitted picture is the saved file scaled as
  // `vkfx saved -f resize:...:kernel=box` scales it, within 1 code.
  const natural = await page.$eval('#view', img => [img.naturalWidth, img.naturalHeight]);
  const scaled = path.join(tmp, 'scaled.png');
  execFileSync(vkfx, [moved, '-f', 'resize:width=' + natural[0] + ':height=' + natural[1] +
                      ':kernel=box', '-o', scaled], {stdio: 'inherit'});
  const want = PNG.sync.read(fs.readFileSync(scaled));
  const got = PNG.sync.read(pic2);
  let worst = 0;
  if (got.width === want.width && got.height === want.height)
    for (let i = 0; i < got.data.length; i++)
      if (i % 4 !== 3) worst = Math.max(worst, Math.abs(got.data[i] - want.data[i]));
  check(got.width === want.width && got.height === want.height && worst <= 1,
        'the fitted picture (' + got.width + 'x' + got.height + ') is the saved file scaled ' +
        'the same way (' + want.width + 'x' + want.height + '): worst ' + worst + ' codes');

  // Point 7: a second Save asks first; declined, the file stays; accepted, it is replaced.
  const before7 = fs.readFileSync(saved);
  let asked = '';
  page.once('dialog', d => { asked = d.message(); d.dismiss(); });
  await page.click('#save');
  await page.waitForFunction(() => /^not saved/.test(document.getElementById('status').textContent));
  check(asked.includes('exists') && Buffer.compare(before7, fs.readFileSync(saved)) === 0,
        'a second Save asks first (' + asked + ') and, declined, keeps the file');
  page.once('dialog', d => d.accept());
  await page.click('#save');
  await page.waitForFunction(() => /^replaced /.test(document.getElementById('status').textContent));
  check(true, 'accepted, the page says the file was replaced');

  // Point 8: 20 focus changes, each from the change to its exact picture on screen.
  const times = [];
  for (let i = 0; i < 20; i++) {
    const before = (await shown()).renders;
    const t0 = Date.now();
    await page.evaluate(v => {
      const box = document.querySelector('input[type=text][data-link="0"][data-text="focus"]');
      box.value = v;
      box.dispatchEvent(new Event('change'));
    }, String(0.2 + i * 0.03));
    await waitCurrent(before);
    times.push(Date.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log('focus changes (20, ' + natural[0] + ' px wide view of ' + 741 + ' px): median ' +
              (times[9] + times[10]) / 2 + ' ms, worst ' + times[19] + ' ms');

  // Point 1: a draft while a slider drags on a slow device, the exact picture when it stops.
  await page.evaluate(() => { draftAfterMs = 0; });
  s = await shown();
  await page.evaluate(() => {
    const r = document.querySelector('input[type=range][data-link="0"][data-opt="maxcoc"]');
    r.value = 20;
    r.dispatchEvent(new Event('input'));
  });
  await page.waitForFunction(() => document.getElementById('view').dataset.mode === 'draft');
  const draftSays = await page.$eval('#shows', el => el.textContent);
  check(/^draft/.test(draftSays), 'dragging shows a draft and says so: ' + draftSays);
  await page.evaluate(() => {
    document.querySelector('input[type=range][data-link="0"][data-opt="maxcoc"]')
      .dispatchEvent(new Event('change'));
  });
  await waitCurrent(s.renders);
  check(/^exact/.test(await page.$eval('#shows', el => el.textContent)),
        'the drag stopped: the exact picture replaces the draft');
  await page.evaluate(() => { draftAfterMs = 150; });

  // Point 4: one method control; switching keeps map, kind, focus, range and maxcoc.
  const kept = ['depth', 'kind', 'focus', 'range', 'maxcoc'];
  await page.evaluate(() => {
    links[0].opts.range = '0.25';
    buildChain();
    changed();
  });
  const dofOpts = await page.evaluate(() => JSON.stringify(links[0].opts));
  for (const m of ['bokeh', 'satdof', 'dof']) {
    s = await shown();
    await page.select('select.method[data-link="0"]', m);
    await waitCurrent(s.renders);
    const l = await page.evaluate(() => links[0]);
    check(l.filter === m && kept.every(k => l.opts[k] === JSON.parse(dofOpts)[k]),
          'method ' + m + ' keeps ' + kept.join(', ') + ': ' + JSON.stringify(l));
  }

  // Point 2: with hole=0, a click on a hole focuses on the fill's value there: along its
  // row, the farther (for disparity the smaller) of the nearest known values.
  const dAt = (x, y) => depth.data[(y * depth.width + x) * 4];
  // The middle of a run of 5 holes, so that the pixel a click takes is one too.
  let hx = -1, hy = -1;
  for (let y = 100; y < 400 && hx < 0; y++)
    for (let x = 100; x < 640; x++)
      if ([0, 1, 2, 3, 4].every(k => dAt(x + k, y) === 0) && [1, 2, 3].every(k => dAt(x + 2, y + k - 2) === 0)) {
        [hx, hy] = [x + 2, y];
        break;
      }
  const filledAt = (x, y) => {
    if (dAt(x, y) !== 0) return dAt(x, y);
    let l = x, r = x;
    while (l >= 0 && dAt(l, y) === 0) l--;
    while (r < depth.width && dAt(r, y) === 0) r++;
    return Math.min(l >= 0 ? dAt(l, y) : 65535, r < depth.width ? dAt(r, y) : 65535);
  };
  await page.evaluate(() => { links[0].opts.hole = '0'; buildChain(); changed(); });
  s = await shown();
  await waitCurrent(s.renders - 1);
  s = await shown();
  const focusBefore = await page.evaluate(() => links[0].opts.focus);
  await page.mouse.click(...await clientNow(hx, hy));
  await page.waitForFunction(f => links[0].opts.focus !== f, {}, focusBefore);
  const took = /at \((\d+), (\d+)\)/.exec(await page.$eval('#status', el => el.textContent));
  const [tx, ty] = [Number(took[1]), Number(took[2])];
  const want2 = Math.fround(1 - Math.fround(filledAt(tx, ty) / 65535));
  const holeFocus = await page.evaluate(() => links[0].opts.focus);
  check(dAt(tx, ty) === 0 && Math.fround(Number(holeFocus)) === want2,
        'a click on the hole at (' + tx + ', ' + ty + ') focuses on the nearest known depth: ' +
        holeFocus + ' vs ' + want2 + ' (the map holds 0 there)');
  await waitCurrent(s.renders);

  // Point 3: the in-focus band: tinted at the pixel clicked (focus is its depth), clear
  // where the depth is far from it.
  await page.keyboard.press('f');
  await page.waitForFunction(() => !document.getElementById('band').hidden &&
    document.getElementById('band').dataset.chain === chainText(links));
  const tintAt = (x, y) => page.evaluate(([x, y]) => {
    const band = document.getElementById('band');
    const c = document.createElement('canvas');
    c.width = band.naturalWidth;
    c.height = band.naturalHeight;
    const g = c.getContext('2d');
    g.drawImage(band, 0, 0);
    // The band's pixel over (x, y), and the map pixel at the centre of its footprint.
    const [bx, by] = [Math.floor(x * c.width / 741), Math.floor(y * c.height / 500)];
    return [g.getImageData(bx, by, 1, 1).data[3], Math.floor((2 * bx + 1) * 741 / (2 * c.width)),
            Math.floor((2 * by + 1) * 500 / (2 * c.height))];
  }, [x, y]);
  const opts = await page.evaluate(() => links[0].opts);
  const inFocus = (x, y) => Number(opts.maxcoc) * Math.min(1, Math.abs(
    Math.fround(1 - filledAt(x, y) / 65535) - Number(opts.focus)) / Number(opts.range)) < 0.5;
  let far = null;
  for (let y = 20; y < 480 && !far; y += 20)
    for (let x = 20; x < 720; x += 20)
      if (Math.abs(Math.fround(1 - filledAt(x, y) / 65535) - want2) > 0.2) { far = [x, y]; break; }
  const [bIn, bFar] = [await tintAt(tx, ty), await tintAt(...far)];
  check(inFocus(bIn[1], bIn[2]) && bIn[0] > 0 && !inFocus(bFar[1], bFar[2]) && bFar[0] === 0,
        'the in-focus band is tinted where focus is (' + bIn + ') and clear far from it (' +
        bFar + ')');
  await page.keyboard.press('f');

  // Point 6: undo and redo.
  const beforeUndo = await chainNow();
  await page.keyboard.down('Control');
  await page.keyboard.press('z');
  await page.keyboard.up('Control');
  const undone = await chainNow();
  check(undone !== beforeUndo && undone.startsWith('dof:'),
        'Ctrl+Z undoes the last change (the hole click): ' + undone);
  await page.click('#redo');
  check(await chainNow() === beforeUndo, 'Redo brings it back');

  // Point 6: undo and redo cover every change, one step each: a slider's drag, the method,
  // the depth map and its kind, a click's focus; Ctrl+Z is the page's while the slider or
  // select just used keeps the keyboard focus. Point 3 with an EXR depth map: focus and range
  // span its metres, and a click focuses on its value.
  const ctrlZ = async shift => {
    await page.keyboard.down('Control');
    if (shift) await page.keyboard.down('Shift');
    await page.keyboard.press('z');
    if (shift) await page.keyboard.up('Shift');
    await page.keyboard.up('Control');
  };
  const focusedOpt = () => page.evaluate(() => document.activeElement.dataset.opt || '');
  const maxcocRange = 'input[type=range][data-link="0"][data-opt="maxcoc"]';
  const mb = await (await page.$(maxcocRange)).boundingBox();
  s = await shown();
  await page.mouse.move(mb.x + mb.width * 0.3, mb.y + mb.height / 2);
  await page.mouse.down();
  await page.mouse.move(mb.x + mb.width * 0.6, mb.y + mb.height / 2, {steps: 6});
  await page.mouse.up();
  await waitCurrent(s.renders);
  const dragged = await chainNow();
  check(dragged !== beforeUndo && await focusedOpt() === 'maxcoc',
        'a drag of maxcoc, the slider keeping the focus: ' + dragged);
  await ctrlZ(false);
  check(await chainNow() === beforeUndo, 'Ctrl+Z on the slider undoes the whole drag at once');
  await ctrlZ(true);
  check(await chainNow() === dragged, 'Ctrl+Shift+Z redoes it');
  await page.select('select.method[data-link="0"]', 'satdof');
  const satdof = await chainNow();
  check(satdof.startsWith('satdof:'), 'the method is satdof');
  await page.click('#undo');
  check((await chainNow()) === dragged, 'Undo: the method is dof again');
  await page.click('#redo');
  check((await chainNow()) === satdof, 'Redo: satdof again');
  // The map, typed into its field as an artist would.
  s = await shown();
  await page.click('input[type=text][data-link="0"][data-opt="depth"]', {clickCount: 3});
  await page.keyboard.type(exr);
  await page.keyboard.press('Enter');
  await page.waitForFunction(f => links[0].opts.depth === f, {}, exr);
  // The kind from its select, which keeps the focus: Ctrl+Z there is the page's too.
  await page.select('select[data-link="0"][data-opt="kind"]', 'depth');
  await page.focus('select[data-link="0"][data-opt="kind"]');
  await ctrlZ(false);
  check((await chainNow()).includes('kind=disparity') && (await chainNow()).includes(exr),
        'Ctrl+Z on the kind select undoes the kind: ' + await chainNow());
  await ctrlZ(true);
  check((await chainNow()).includes('kind=depth'), 'Ctrl+Shift+Z redoes it');
  const spanOf = name => page.$eval('input[type=range][data-link="0"][data-opt="' + name + '"]',
    r => [Number(r.min), Number(r.max), r.parentNode.querySelector('label').dataset.unit]);
  await page.waitForFunction(() => {
    const r = document.querySelector('input[type=range][data-link="0"][data-opt="focus"]');
    return r && r.dataset.span === 'known' && Number(r.max) !== 1;
  });
  const [fSpan, rSpan] = [await spanOf('focus'), await spanOf('range')];
  check(Math.fround(fSpan[0]) === zMin && Math.fround(fSpan[1]) === zMax &&
        Math.abs(rSpan[1] - (zMax - zMin)) < 1e-5 && fSpan[2] === 'scene units (m)',
        'an EXR depth map: focus spans its metres ' + zMin + '..' + zMax + ' (' + fSpan +
        '), range up to ' + (zMax - zMin) + ' (' + rSpan + ')');
  await waitCurrent(s.renders);
  s = await shown();
  const [ex, ey] = [250, 380];
  await page.mouse.move(...await clientNow(ex, ey));
  await page.waitForFunction(() => / m at /.test(document.getElementById('readout').textContent));
  check(true, 'the depth under the pointer in metres: ' +
        await page.$eval('#readout', el => el.textContent));
  const focusBeforeExr = await page.evaluate(() => links[0].opts.focus);
  await page.mouse.click(...await clientNow(ex, ey));
  await page.waitForFunction(f => links[0].opts.focus !== f, {}, focusBeforeExr);
  const tookExr = /at \((\d+), (\d+)\)/.exec(await page.$eval('#status', el => el.textContent));
  const exrFocus = await page.evaluate(() => links[0].opts.focus);
  const wantExr = metres[Number(tookExr[2]) * depth.width + Number(tookExr[1])];
  check(Math.fround(Number(exrFocus)) === wantExr,
        'a click on the EXR-mapped picture focuses on its metres there: ' + exrFocus + ' vs ' +
        wantExr);
  await waitCurrent(s.renders);
  check(await page.$eval('#error', el => el.textContent) === '' &&
        await page.$eval('#view', img => img.dataset.stale) === '0',
        'satdof renders with the EXR depth map');
  const clicked = await chainNow();
  await ctrlZ(false);
  check(!(await chainNow()).includes('focus=' + exrFocus) &&
        (await chainNow()).includes('kind=depth'), 'Ctrl+Z undoes the click\'s focus');
  await ctrlZ(false);
  check((await chainNow()).includes('kind=disparity') && (await chainNow()).includes(exr),
        'then the kind');
  await ctrlZ(false);
  check(await chainNow() === satdof && (await spanOf('focus'))[1] === 1,
        'then the map: the PNG again, focus spanning 0..1');
  await ctrlZ(false);
  await ctrlZ(false);
  check(await chainNow() === beforeUndo, 'then the method and the drag');
  for (let i = 0; i < 5; i++) await ctrlZ(true);
  check(await chainNow() === clicked, 'five redos bring every change back');
  for (let i = 0; i < 5; i++) await ctrlZ(false);
  check(await chainNow() === beforeUndo, 'and five undos take them away again');

  // Point 6: the chain as text, checked as the command line checks it.
  await page.click('#chaintext', {clickCount: 3});
  await page.keyboard.type('gauss:sigma=0');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('chaintext').classList.contains('bad'));
  const rejected = await page.$eval('#error', el => el.textContent);
  check(rejected === 'vkfx: gauss: sigma=0 is out of range 0.1..1000' &&
        await chainNow() === beforeUndo,
        'a bad chain typed is refused with the command line\'s message: ' + rejected);

  // Point 6: a picture whose settings failed is marked stale; busy while a render is out.
  s = await shown();
  await page.evaluate(() => { links[0].opts.depth = 'images/no-such-map.png'; changed(); });
  await page.waitForFunction(() => document.getElementById('view').dataset.stale === '1');
  check(!(await page.$eval('#stale', el => el.hidden)) &&
        (await page.$eval('#error', el => el.textContent)).includes('no-such-map.png'),
        'a failed render leaves the last picture marked stale, with the error');
  await page.click('#undo');
  await waitCurrent(s.renders);
  check(await page.$eval('#view', img => img.dataset.stale) === '0',
        'undo to good settings: the picture is fresh again');
  const busySeen = page.waitForFunction(() => document.body.dataset.busy === '1' &&
    !document.getElementById('busy').hidden, {polling: 'mutation'});
  await page.evaluate(() => { links[0].opts.maxcoc = '13'; changed(); });
  await busySeen;
  check(true, 'the busy indicator shows while a render is out');
  s = await shown();
  await waitCurrent(s.renders - 1);

  // Point 5: the A/B split, its divider dragged; a snapshot on its left side.
  await page.keyboard.press('s');
  await page.waitForFunction(() => document.getElementById('other').dataset.shows === 'input');
  const div = await (await page.$('#divider')).boundingBox();
  const view = await (await page.$('#view')).boundingBox();
  await page.mouse.move(div.x + 1, div.y + div.height / 2);
  await page.mouse.down();
  await page.mouse.move(view.x + view.width * 0.25, div.y + div.height / 2, {steps: 4});
  await page.mouse.up();
  const clip = await page.$eval('#other', el => el.style.clipPath);
  check(/inset\(0(px)? 7[45]\.?\d*% 0(px)? 0(px)?\)/.test(clip),
        'the split shows the input left of the divider, dragged to a quarter: ' + clip);
  await page.keyboard.press('p');
  await page.select('#split-with', 'snapshot');
  await page.waitForFunction(() => document.getElementById('other').dataset.shows === 'snapshot');
  check(true, 'a snapshot on the split\'s left side');
  // A second snapshot of another picture: the two side by side.
  s = await shown();
  await page.evaluate(() => { links[0].opts.maxcoc = '4'; changed(); });
  await waitCurrent(s.renders);
  await page.keyboard.press('p');
  await page.select('#split-with', 'snapshots');
  await page.waitForFunction(() => document.getElementById('other').dataset.shows === 'snapshots');
  const two = await page.evaluate(() => [document.getElementById('other').src,
    document.getElementById('otherb').src, document.getElementById('otherb').hidden,
    document.getElementById('otherb').style.clipPath]);
  check(two[0] !== two[1] && !two[2] && /inset\(0(px)? 0(px)? 0(px)? 2[45]/.test(two[3]),
        'two snapshots split: the older left, the newer right of the divider (' + two[3] + ')');
  await page.keyboard.press('s');

  // Point 5: the wheel zooms about the pointer; a drag pans at 100% and above.
  const aim = await clientNow(500, 200);
  const under = () => page.evaluate(([x, y]) => pixelAt({clientX: x, clientY: y}), aim);
  const p0 = await under();
  await page.mouse.move(...aim);
  for (let i = 0; i < 5; i++) await page.mouse.wheel({deltaY: -100});
  const p1 = await under();
  const z = await page.evaluate(() => [zoom, pixelScale()]);
  check(z[0] > 2 && Math.abs(p1[0] - p0[0]) <= 2 && Math.abs(p1[1] - p0[1]) <= 2,
        'the wheel zooms to the pointer: x' + z[0].toFixed(2) + ', the pixel under it ' + p0 +
        ' then ' + p1);
  await page.mouse.down();
  await page.mouse.move(aim[0] - 80, aim[1] - 40, {steps: 5});
  await page.mouse.up();
  const p2 = await under();
  check(z[1] <= 1 && p2[0] > p1[0] + 20 && p2[1] > p1[1] + 10,
        'a drag at ' + (100 / z[1]).toFixed(0) + '% pans: the pixel under the pointer ' + p2);
  await page.keyboard.press('z');
  check(await page.evaluate(() => zoom) === 1, 'z fits the picture again');

  // Point 5: ? lists the shortcuts.
  await page.keyboard.press('?');
  const keys = await page.$eval('#keys', el => el.hidden ? '' : el.textContent);
  check(/wheel/.test(keys) && /Ctrl\+Z/.test(keys), '? lists the shortcuts');
  await page.keyboard.press('Escape');

  // Point 7: no filters, no command line (never -f '').
  await page.click('#chaintext', {clickCount: 3});
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('copy').disabled);
  const cmd7 = await commandLine();
  check(!cmd7.includes("-f ''") && !cmd7.startsWith('vkfx'),
        'an empty chain shows no command line: ' + cmd7);

  // A slow chain (many short passes), set as the page's own script would.
  const slow = Array(300).fill('bilateral:radius=12').join(',');
  const setChain = text => page.evaluate(t => { links = parseChain(t); render(); }, text);
  const limited = await startPreview(['--time-limit', '1']);
  try {
    await page.goto(limited.url);
    // The first picture, or its own stop where a busy machine builds the kernels for longer
    // than the limit; the slow chain's stop is the one looked for.
    await page.waitForFunction(() => document.body.dataset.busy === '0' &&
      (Number(document.getElementById('view').dataset.renders || 0) > 0 ||
       document.getElementById('error').textContent !== ''));
    await page.evaluate(() => { document.getElementById('error').textContent = ''; });
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
  check(false, 'the page works: ' + e.stack + (e.cause ? '\ncaused by: ' + e.cause.stack : ''));
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
