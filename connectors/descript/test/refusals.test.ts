import { InvalidInputError, readAll, writeAction } from '@plugboard/sdk';
import { prepareRun } from '@plugboard/sdk/host';
import { describe, expect, it } from 'vitest';
import { mediaUrlProblem, privateHostProblem } from '../src/index.js';
import { failure, projectId, useHarness } from './support.js';

/**
 * Every check the connector makes before sending: each is refused with a clear message naming
 * the field, and the simulator sees no request at all.
 */

const harness = useHarness();
const URL_OK = 'https://media.example.com/uploads/talk.mp4?duration=30';

async function refusedBeforeAnyRequest(
  run: (h: Awaited<ReturnType<typeof harness>>) => Promise<unknown>,
  path: string,
  message: RegExp,
): Promise<void> {
  const h = await harness();
  const error = await failure(run(h));
  expect(error).toBeInstanceOf(InvalidInputError);
  expect(error['code']).toBe('invalid_input');
  const issues = error['issues'] as Array<{ path: string; message: string }>;
  expect(
    issues.some((issue) => issue.path === path && message.test(issue.message)),
    `${error.message}`,
  ).toBe(true);
  expect(h.sim.requests).toHaveLength(0);
}

describe('media_imports.create refuses before any request', () => {
  // Production runs go without an approval: refusals come before the approval gate.
  const importing =
    (input: unknown, environment: 'sandbox' | 'production' = 'sandbox') =>
    (h: Awaited<ReturnType<typeof harness>>) =>
      writeAction(h.connector, 'media_imports.create', h.options(input, { environment }));

  it('the direct-upload form', async () => {
    await refusedBeforeAnyRequest(
      importing({
        project_name: 'Upload',
        add_media: { 'recording.mp4': { content_type: 'video/mp4', file_size: 52_428_800 } },
      }),
      'add_media.recording.mp4',
      /direct upload .*not offered.*URL/,
    );
  });

  it('a URL that is not valid as it stands (a space)', async () => {
    await refusedBeforeAnyRequest(
      importing({ project_name: 'P', add_media: { 'talk.mp4': { url: 'https://media.example.com/my talk.mp4' } } }),
      'add_media.talk.mp4.url',
      /percent-encode/,
    );
  });

  for (const url of [
    'ftp://files.example.com/talk.mp4',
    'file:///home/me/talk.mp4',
    'data:video/mp4;base64,AAAA',
    's3://bucket/talk.mp4',
    'talk.mp4',
  ]) {
    it(`a URL that is not http(s): ${url}`, async () => {
      await refusedBeforeAnyRequest(
        importing({ project_name: 'P', add_media: { 'talk.mp4': { url } } }),
        'add_media.talk.mp4.url',
        /http/,
      );
    });
  }

  for (const url of [
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
    'https://youtu.be/dQw4w9WgXcQ',
    'https://m.youtube.com/shorts/abc',
    'https://vimeo.com/76979871',
    'https://www.tiktok.com/@someone/video/7234',
    'https://www.dailymotion.com/video/x8abc',
    'https://www.twitch.tv/videos/123456',
    'https://www.facebook.com/watch/?v=10153231379946729',
    'https://fb.watch/abc123/',
    'https://fb.me/e/abc123',
    'https://www.instagram.com/reel/Cabc123/',
    'https://www.youtube.co.uk/watch?v=dQw4w9WgXcQ',
    'https://youtube.de/watch?v=dQw4w9WgXcQ',
    'https://m.youtube.com.br/watch?v=dQw4w9WgXcQ',
    'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ',
    'https://player.vimeo.com/video/76979871',
    'https://clips.twitch.tv/SomeClipSlug',
    'https://de-de.facebook.de/watch/?v=1',
  ]) {
    it(`a video-sharing site page: ${url}`, async () => {
      await refusedBeforeAnyRequest(
        importing({ project_name: 'P', add_media: { 'talk.mp4': { url } } }),
        'add_media.talk.mp4.url',
        /video-sharing site/,
      );
    });
  }

  for (const url of [
    'http://127.0.0.1:8080/talk.mp4',
    'http://localhost/talk.mp4',
    'http://media.localhost/talk.mp4',
    'http://10.1.2.3/talk.mp4',
    'http://172.20.0.5/talk.mp4',
    'http://192.168.1.20/talk.mp4',
    'http://169.254.169.254/latest/meta-data',
    'http://0.0.0.0/talk.mp4',
    'http://2130706433/talk.mp4',
    'http://[::1]/talk.mp4',
    'http://[fe80::1]/talk.mp4',
    'http://[fd12:3456::1]/talk.mp4',
    'http://[::ffff:127.0.0.1]/talk.mp4',
    'http://[::ffff:10.0.0.1]/talk.mp4',
    'http://0xA9FEA9FE/latest/meta-data',
    'http://[fd00:ec2::254]/latest/meta-data',
    'http://[64:ff9b::a9fe:a9fe]/latest/meta-data',
    'http://[64:ff9b::169.254.169.254]/latest/meta-data',
    'http://[2002:a9fe:a9fe::]/latest/meta-data',
    'http://[2001:0:4136:e378:8000:63bf:5601:5601]/latest/meta-data',
    'http://[::ffff:0:a9fe:a9fe]/latest/meta-data',
    'http://[64:ff9b::a00:1]/talk.mp4',
    'http://[2002:c0a8:114::1]/talk.mp4',
  ]) {
    it(`in production, a loopback, private or link-local host: ${url}`, async () => {
      await refusedBeforeAnyRequest(
        importing({ project_name: 'P', add_media: { 'talk.mp4': { url } } }, 'production'),
        'add_media.talk.mp4.url',
        /in production/,
      );
    });
  }

  it('a URL with a user name or password', async () => {
    for (const url of [
      'https://user:secret@media.example.com/talk.mp4',
      'https://user@media.example.com/talk.mp4',
      'https://:secret@media.example.com/talk.mp4',
    ]) {
      await refusedBeforeAnyRequest(
        importing({ project_name: 'P', add_media: { 'talk.mp4': { url } } }),
        'add_media.talk.mp4.url',
        /must not contain a user name or password/,
      );
    }
  });

  it('in production, a private host without any approval: invalid_input, not approval_required, and no digest to approve', async () => {
    const h = await harness();
    const input = {
      project_name: 'Intranet',
      add_media: { 'a.mp4': { url: URL_OK }, 'talk.mp4': { url: 'http://192.168.1.20/talk.mp4' } },
    };
    const run = h.options(input, { environment: 'production' });
    const error = await failure(writeAction(h.connector, 'media_imports.create', run));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error['code']).toBe('invalid_input');
    expect(error['issues']).toEqual([
      { path: 'add_media.talk.mp4.url', message: expect.stringMatching(/private address; in production/) },
    ]);
    expect(() => prepareRun(h.connector, 'media_imports.create', run)).toThrow(InvalidInputError);
    expect(h.sim.requests).toHaveLength(0);
  });

  it('lets a private host through in the sandbox (the provider decides there)', async () => {
    const h = await harness();
    await writeAction(
      h.connector,
      'media_imports.create',
      h.options({ project_name: 'Intranet', add_media: { 'talk.mp4': { url: 'http://192.168.1.20/talk.mp4' } } }),
    );
    expect(h.requestsTo('/jobs/import/project_media')).toHaveLength(1);
  });

  it('both project_id and project_name', async () => {
    await refusedBeforeAnyRequest(
      (h) =>
        writeAction(
          h.connector,
          'media_imports.create',
          h.options({ project_id: projectId(h.sim, 3), project_name: 'Both', add_media: { 'a.mp4': { url: URL_OK } } }),
        ),
      'project_id',
      /not both/,
    );
  });

  it('neither project_id nor project_name', async () => {
    await refusedBeforeAnyRequest(
      importing({ add_media: { 'a.mp4': { url: URL_OK } } }),
      'project_id',
      /exactly one of project_id .*and project_name/,
    );
  });

  it('new-project fields with project_id, a sequence of unknown media, an empty import, url and tracks together', async () => {
    await refusedBeforeAnyRequest(
      (h) =>
        writeAction(
          h.connector,
          'media_imports.create',
          h.options({
            project_id: projectId(h.sim, 3),
            folder_name: 'Clients',
            add_media: { 'a.mp4': { url: URL_OK } },
          }),
        ),
      'folder_name',
      /new project only/,
    );
    await refusedBeforeAnyRequest(
      importing({ project_name: 'P', add_media: { Multicam: { tracks: [{ media: 'missing.mp4' }] } } }),
      'add_media.Multicam.tracks.0.media',
      /not a key of add_media/,
    );
    await refusedBeforeAnyRequest(importing({ project_name: 'P' }), 'add_media', /at least one/);
    await refusedBeforeAnyRequest(
      importing({ project_name: 'P', add_media: { 'a.mp4': { url: URL_OK, tracks: [{ media: 'b.mp4' }] } } }),
      'add_media.a.mp4',
      /either url .* or tracks/,
    );
  });

  it('a callback URL (the platform never sets one)', async () => {
    await refusedBeforeAnyRequest(
      importing({
        project_name: 'P',
        add_media: { 'a.mp4': { url: URL_OK } },
        callback_url: 'https://hooks.example.com/x',
      }),
      '',
      /callback_url/,
    );
  });
});

describe('agent_edits.create refuses before any request', () => {
  const editing = (input: unknown) => (h: Awaited<ReturnType<typeof harness>>) =>
    writeAction(h.connector, 'agent_edits.create', h.options(input));

  it('neither or both of project_id and project_name', async () => {
    await refusedBeforeAnyRequest(editing({ prompt: 'add captions' }), 'project_id', /exactly one of project_id/);
    await refusedBeforeAnyRequest(
      (h) => editing({ prompt: 'add captions', project_id: projectId(h.sim, 2), project_name: 'New' })(h),
      'project_id',
      /not both/,
    );
  });

  it('composition_id or conversation_id without project_id', async () => {
    await refusedBeforeAnyRequest(
      editing({ prompt: 'add captions', project_name: 'New', composition_id: '39677' }),
      'composition_id',
      /needs project_id/,
    );
    await refusedBeforeAnyRequest(
      editing({ prompt: 'add captions', project_name: 'New', conversation_id: 'a1b2c3d4-e5f6-7890-abcd-ef1234567890' }),
      'conversation_id',
      /needs project_id/,
    );
  });

  it('team_access without project_name', async () => {
    await refusedBeforeAnyRequest(
      (h) => editing({ prompt: 'add captions', project_id: projectId(h.sim, 2), team_access: 'edit' })(h),
      'team_access',
      /new project only/,
    );
  });

  it('an empty prompt', async () => {
    await refusedBeforeAnyRequest(editing({ prompt: '   ', project_name: 'New' }), 'prompt', /must not be empty/);
  });
});

describe('sources refuse before any request', () => {
  it('transcripts.get: DOCX', async () => {
    await refusedBeforeAnyRequest(
      (h) => readAll(h.connector, 'transcripts.get', h.options({ project_id: projectId(h.sim, 1), format: 'docx' })),
      'format',
      /DOCX transcripts are not offered/,
    );
  });

  it('drive_items.search: an empty query, visual with another match kind, a limit over 100', async () => {
    await refusedBeforeAnyRequest(
      (h) => readAll(h.connector, 'drive_items.search', h.options({ query: ' ' })),
      'query',
      /must not be empty/,
    );
    await refusedBeforeAnyRequest(
      (h) => readAll(h.connector, 'drive_items.search', h.options({ query: 'x', match: ['visual', 'name'] })),
      'match',
      /cannot be combined/,
    );
    await refusedBeforeAnyRequest(
      (h) => readAll(h.connector, 'drive_items.search', h.options({ query: 'x', limit: 101 })),
      'limit',
      /100/,
    );
  });

  it('projects.list and jobs.list: a limit over 100, a timestamp without a zone', async () => {
    await refusedBeforeAnyRequest(
      (h) => readAll(h.connector, 'projects.list', h.options({ limit: 500 })),
      'limit',
      /100/,
    );
    await refusedBeforeAnyRequest(
      (h) => readAll(h.connector, 'jobs.list', h.options({ created_after: '2026-03-01' })),
      'created_after',
      /ISO 8601/,
    );
  });
});

describe('the media URL guard', () => {
  it('passes public http(s) URLs of media files', () => {
    for (const url of [
      'https://media.example.com/a.mp4',
      'http://203.0.113.7/a.wav',
      'https://[2001:db8::1]/a.mp4',
      'https://storage.googleapis.com/bucket/a.mp4?X-Goog-Signature=abc',
      'https://player.example.org/youtube.com/a.mp4',
      'https://notyoutube.com/a.mp4',
      'https://youtube.example.com/a.mp4',
      'https://media.example.com/youtube.co.uk/a.mp4',
      'https://vimeocdn.example.net/a.mp4',
      'https://cdn.example.com/a.mp4?redirect=user@host',
    ]) {
      expect(mediaUrlProblem(url), url).toBeUndefined();
      expect(privateHostProblem(url), url).toBeUndefined();
    }
  });

  it('names the reason', () => {
    expect(privateHostProblem('http://127.0.0.1/a.mp4')).toMatch(/loopback address/);
    expect(privateHostProblem('http://10.0.0.1/a.mp4')).toMatch(/private address/);
    expect(privateHostProblem('http://169.254.1.1/a.mp4')).toMatch(/link-local address/);
    expect(privateHostProblem('http://[fe80::abcd]/a.mp4')).toMatch(/link-local address/);
    expect(privateHostProblem('http://169.254.169.254/latest')).toMatch(
      /host 169\.254\.169\.254 is a cloud metadata address;/,
    );
    expect(privateHostProblem('http://[64:ff9b::a9fe:a9fe]/latest')).toMatch(
      /cloud metadata address inside a NAT64 address/,
    );
    expect(privateHostProblem('http://[2002:a9fe:a9fe::]/latest')).toMatch(
      /cloud metadata address inside a 6to4 address/,
    );
    expect(privateHostProblem('http://[::ffff:169.254.169.254]/latest')).toMatch(
      /cloud metadata address inside an IPv4-mapped IPv6 address/,
    );
    expect(privateHostProblem('http://[64:ff9b::808:808]/a.mp4')).toBeUndefined();
    expect(privateHostProblem('http://[2002:808:808::1]/a.mp4')).toBeUndefined();
    expect(mediaUrlProblem('https://vimeo.com/1')).toMatch(/vimeo\.com is a video-sharing site/);
    expect(mediaUrlProblem('https://player.vimeo.com/video/1')).toMatch(/vimeo\.com is a video-sharing site/);
    expect(mediaUrlProblem('https://www.youtube.co.uk/watch?v=1')).toMatch(/youtube\.co\.uk is a video-sharing site/);
    expect(mediaUrlProblem('https://youtube.com.br./watch?v=1')).toMatch(/youtube\.com\.br is a video-sharing site/);
    expect(mediaUrlProblem('https://user:pw@media.example.com/a.mp4')).toMatch(
      /must not contain a user name or password.*pre-signed/,
    );
  });
});
