#!/usr/bin/env node
// fake-api.js - a local stand-in for the REST endpoints ci/perfgate-ci.sh
// calls, for the tests in tests/ci/: GitHub issue comments (list, create,
// update) and pull requests (head sha), GitLab merge requests (head sha),
// notes (list, create, update) and project uploads (multipart POST, served
// back as GitLab does: images inline, SVG and the rest as attachments), and,
// with --git-dir, GitHub's raw file URLs (/OWNER/REPO/raw/COMMIT/PATH) read
// from a real bare repository with git. Listens on 127.0.0.1 on a free port (written to
// --port-file once listening), keeps comments in memory, and appends every
// request as one JSON line (method, url, the headers that matter, raw body)
// to --log. GET /_state returns the stored comments, notes and uploads;
// POST /_head {"sha"} moves every PR/MR to a new head.
//
// Options:
//   --port-file F      where to write the port (required)
//   --log F            request log, JSON lines (required)
//   --token T          the only accepted GitHub token (Authorization: Bearer T)
//   --gitlab-token T   the only accepted GitLab token (PRIVATE-TOKEN: T)
//   --readonly         GitHub writes answer 403 "Resource not accessible by integration"
//   --seed N           pre-load N unrelated comments/notes on PR/MR 7 (pagination)
//   --head-sha SHA     head.sha of every pull request (GET /repos/o/r/pulls/N) and
//                      sha of every merge request (GET .../merge_requests/N)
//   --git-dir DIR      serve GET /OWNER/REPO/raw/COMMIT/PATH from DIR (git cat-file)
// Invariants: answers only 127.0.0.1; bodies are stored exactly as received.
'use strict';
const http = require('http');
const fs = require('fs');

const { execFileSync } = require('child_process');
const crypto = require('crypto');

const opt = { token: '', gitlabToken: '', readonly: false, seed: 0, headSha: '', gitDir: '' };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  const v = () => process.argv[++i];
  if (a === '--port-file') opt.portFile = v();
  else if (a === '--log') opt.log = v();
  else if (a === '--token') opt.token = v();
  else if (a === '--gitlab-token') opt.gitlabToken = v();
  else if (a === '--readonly') opt.readonly = true;
  else if (a === '--seed') opt.seed = parseInt(v(), 10);
  else if (a === '--head-sha') opt.headSha = v();
  else if (a === '--git-dir') opt.gitDir = v();
  else { console.error(`fake-api: unknown option '${a}'`); process.exit(2); }
}
if (!opt.portFile || !opt.log) { console.error('fake-api: --port-file and --log are required'); process.exit(2); }

let nextId = 1000;
const comments = []; // {id, pr, repo, body, user}
const notes = [];    // {id, iid, project, body, system}
const uploads = [];  // {project, secret, filename, size, contentType}
const uploadData = new Map(); // "/uploads/<secret>/<filename>" -> Buffer

// The file parts of a multipart/form-data body: [{name, filename, type, data}].
function multipart(raw, contentType) {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType || '');
  if (!m) return null;
  const sep = Buffer.from('--' + (m[1] || m[2]));
  const parts = [];
  let pos = raw.indexOf(sep);
  while (pos >= 0) {
    const start = pos + sep.length;
    if (raw.slice(start, start + 2).toString() === '--') break;
    const next = raw.indexOf(sep, start);
    if (next < 0) return null;
    const part = raw.slice(start + 2, next - 2); // CRLF after the boundary, before the next
    const hend = part.indexOf('\r\n\r\n');
    if (hend < 0) return null;
    const head = part.slice(0, hend).toString('utf8');
    const disp = /content-disposition:[^\r\n]*?; name="([^"]*)"/i.exec(head);
    const fname = /content-disposition:[^\r\n]*?; filename="([^"]*)"/i.exec(head);
    const type = /content-type:\s*([^\r\n]+)/i.exec(head);
    parts.push({ name: disp ? disp[1] : '', filename: fname ? fname[1] : undefined,
                 type: type ? type[1] : '', data: part.slice(hend + 4) });
    pos = next;
  }
  return parts;
}

const IMAGE_EXT = /\.(png|jpe?g|gif|webp)$/i;
for (let i = 0; i < opt.seed; i++) {
  // Unrelated chatter, one quoting the marker not at the start.
  const body = i === 3 ? '> <!-- perfgate -->\n> quoted by a human' : `comment ${i} \u00e9`;
  comments.push({ id: nextId++, pr: 7, repo: 'octo/proj', body, user: { login: 'someone' } });
  notes.push({ id: nextId++, iid: 7, project: '42', body, system: i === 5 });
}

function send(res, code, obj) {
  const data = Buffer.from(JSON.stringify(obj));
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': data.length });
  res.end(data);
}

function page(list, q) {
  const per = Math.min(parseInt(q.get('per_page') || '30', 10), 100);
  const p = parseInt(q.get('page') || '1', 10);
  return list.slice((p - 1) * per, p * per);
}

function ghComment(c, base) {
  return { id: c.id, body: c.body, user: c.user, html_url: `${base}/octo/proj/pull/${c.pr}#issuecomment-${c.id}` };
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url, 'http://127.0.0.1');
    const h = req.headers;
    fs.appendFileSync(opt.log, JSON.stringify({
      method: req.method, path: url.pathname, query: url.search,
      headers: { authorization: h.authorization || null, 'private-token': h['private-token'] || null,
                 'content-type': h['content-type'] || null, accept: h.accept || null,
                 'x-github-api-version': h['x-github-api-version'] || null },
      body: raw.toString('utf8'),
    }) + '\n');
    let body = null;
    const isMultipart = /^multipart\/form-data/.test(h['content-type'] || '');
    if (raw.length && !isMultipart) {
      try { body = JSON.parse(raw.toString('utf8')); } catch (e) { return send(res, 400, { message: 'Problems parsing JSON' }); }
    }
    const p = url.pathname;
    let m;
    if (p === '/_state') return send(res, 200, { comments, notes, uploads });
    if (p === '/_head' && req.method === 'POST') { // the PR/MR moved to a new head
      opt.headSha = (body && body.sha) || '';
      return send(res, 200, { sha: opt.headSha });
    }

    // ---- GitHub raw files from the bare repository (what the image proxy fetches)
    if (opt.gitDir && req.method === 'GET' && (m = p.match(/^\/([^/]+)\/([^/]+)\/raw\/([0-9a-f]{40})\/(.+)$/))) {
      let data;
      try {
        data = execFileSync('git', ['--git-dir', opt.gitDir, 'cat-file', 'blob', `${m[3]}:${decodeURIComponent(m[4])}`],
                            { stdio: ['ignore', 'pipe', 'ignore'] });
      } catch (e) { return send(res, 404, { message: 'Not Found' }); }
      res.writeHead(200, { 'Content-Type': /\.svg$/.test(m[4]) ? 'image/svg+xml' : 'application/octet-stream',
                           'Content-Length': data.length });
      return res.end(data);
    }

    // ---- GitLab uploads served back: images inline, anything else (SVG
    // included: a "dangerous" type to GitLab) as an attachment
    if (req.method === 'GET' && uploadData.has(p)) {
      const data = uploadData.get(p);
      const hdr = { 'Content-Length': data.length };
      if (IMAGE_EXT.test(p)) hdr['Content-Type'] = /\.png$/i.test(p) ? 'image/png' : 'image/*';
      else { hdr['Content-Type'] = 'application/octet-stream'; hdr['Content-Disposition'] = 'attachment'; }
      res.writeHead(200, hdr);
      return res.end(data);
    }

    // ---- GitHub
    if ((m = p.match(/^\/repos\/([^/]+\/[^/]+)\/(issues|pulls)\//))) {
      if (h.authorization !== `Bearer ${opt.token}`) return send(res, 401, { message: 'Bad credentials' });
    }
    if ((m = p.match(/^\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)$/)) && req.method === 'GET') {
      return send(res, 200, { number: +m[2], head: { sha: opt.headSha } });
    }
    if ((m = p.match(/^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)\/comments$/))) {
      const repo = m[1], pr = +m[2];
      if (req.method === 'GET') {
        return send(res, 200, page(comments.filter((c) => c.repo === repo && c.pr === pr), url.searchParams)
          .map((c) => ghComment(c, 'https://github.test')));
      }
      if (req.method === 'POST') {
        if (opt.readonly) return send(res, 403, { message: 'Resource not accessible by integration' });
        if (!body || typeof body.body !== 'string') return send(res, 422, { message: 'Validation Failed' });
        const c = { id: nextId++, pr, repo, body: body.body, user: { login: 'github-actions[bot]' } };
        comments.push(c);
        return send(res, 201, ghComment(c, 'https://github.test'));
      }
    }
    if ((m = p.match(/^\/repos\/([^/]+\/[^/]+)\/issues\/comments\/(\d+)$/)) && req.method === 'DELETE') {
      if (opt.readonly) return send(res, 403, { message: 'Resource not accessible by integration' });
      const i = comments.findIndex((x) => x.id === +m[2] && x.repo === m[1]);
      if (i < 0) return send(res, 404, { message: 'Not Found' });
      comments.splice(i, 1);
      res.writeHead(204);
      return res.end();
    }
    if ((m = p.match(/^\/repos\/([^/]+\/[^/]+)\/issues\/comments\/(\d+)$/)) && req.method === 'PATCH') {
      if (opt.readonly) return send(res, 403, { message: 'Resource not accessible by integration' });
      const c = comments.find((x) => x.id === +m[2] && x.repo === m[1]);
      if (!c) return send(res, 404, { message: 'Not Found' });
      if (!body || typeof body.body !== 'string') return send(res, 422, { message: 'Validation Failed' });
      c.body = body.body;
      return send(res, 200, ghComment(c, 'https://github.test'));
    }

    // ---- GitLab
    if ((m = p.match(/^\/api\/v4\/projects\/([^/]+)\/(merge_requests\/\d+|uploads)$/))) {
      if (h['private-token'] !== opt.gitlabToken) return send(res, 401, { message: '401 Unauthorized' });
      const project = decodeURIComponent(m[1]);
      if (m[2] !== 'uploads' && req.method === 'GET') {
        return send(res, 200, { iid: +m[2].split('/')[1], project_id: project, sha: opt.headSha || null });
      }
      if (m[2] === 'uploads' && req.method === 'POST') {
        const parts = isMultipart ? multipart(raw, h['content-type']) : null;
        const file = parts && parts.find((x) => x.name === 'file' && x.filename !== undefined);
        if (!file) return send(res, 400, { message: 'file is missing' });
        const secret = crypto.randomBytes(16).toString('hex');
        const url = `/uploads/${secret}/${file.filename}`;
        uploadData.set(url, file.data);
        uploads.push({ project, secret, filename: file.filename, size: file.data.length, contentType: file.type });
        const alt = file.filename.replace(/\.[^.]*$/, '');
        return send(res, 201, {
          id: nextId++, alt, url, full_path: `/-/project/${project}/uploads/${secret}/${file.filename}`,
          markdown: IMAGE_EXT.test(file.filename) ? `![${alt}](${url})` : `[${file.filename}](${url})`,
        });
      }
    }
    if ((m = p.match(/^\/api\/v4\/projects\/([^/]+)\/merge_requests\/(\d+)\/notes(?:\/(\d+))?$/))) {
      if (h['private-token'] !== opt.gitlabToken) return send(res, 401, { message: '401 Unauthorized' });
      const project = decodeURIComponent(m[1]), iid = +m[2];
      if (!m[3] && req.method === 'GET') {
        return send(res, 200, page(notes.filter((n) => n.project === project && n.iid === iid), url.searchParams));
      }
      if (!m[3] && req.method === 'POST') {
        if (!body || typeof body.body !== 'string') return send(res, 400, { message: 'body is missing' });
        const n = { id: nextId++, iid, project, body: body.body, system: false };
        notes.push(n);
        return send(res, 201, n);
      }
      if (m[3] && req.method === 'PUT') {
        const n = notes.find((x) => x.id === +m[3] && x.project === project && x.iid === iid);
        if (!n) return send(res, 404, { message: '404 Not found' });
        if (!body || typeof body.body !== 'string') return send(res, 400, { message: 'body is missing' });
        n.body = body.body;
        return send(res, 200, n);
      }
      if (m[3] && req.method === 'DELETE') {
        const i = notes.findIndex((x) => x.id === +m[3] && x.project === project && x.iid === iid);
        if (i < 0) return send(res, 404, { message: '404 Not found' });
        notes.splice(i, 1);
        res.writeHead(204);
        return res.end();
      }
    }
    return send(res, 404, { message: 'Not Found' });
  });
});

server.listen(0, '127.0.0.1', () => {
  const tmp = `${opt.portFile}.tmp`;
  fs.writeFileSync(tmp, String(server.address().port));
  fs.renameSync(tmp, opt.portFile);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
