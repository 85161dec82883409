import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDescriptSimulator, type DescriptSimulator } from '../src/index.js';
import { T0, call } from './helpers.js';

describe('POST /export/transcript', () => {
  let sim: DescriptSimulator;
  let project: any;
  beforeAll(async () => {
    sim = await startDescriptSimulator({ seed: 2, size: 10, clock: () => T0 });
    project = sim.state.project(0);
  });
  afterAll(() => sim.close());

  const exportAs = (body: Record<string, unknown>) =>
    call(sim, '/export/transcript', { body: { project_id: project.id, ...body } });

  it('answers SRT cues as an attachment naming the composition', async () => {
    const answer = await exportAs({ format: 'srt', include_speaker_labels: 'off' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/x-subrip/);
    expect(answer.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.srt"$/);
    expect(answer.headers.get('x-composition-id')).toBe(project.compositions[0].id);
    expect(answer.text).toMatch(/^1\n00:00:00,000 --> 00:00:\d{2},\d{3}\n[^\n]+\n\n2\n/);
    expect(answer.text).not.toMatch(/^\w+: /m);
  });

  it('renders txt, markdown, html and rtf with speaker labels, timecodes and markers', async () => {
    const txt = await exportAs({
      format: 'txt',
      include_speaker_labels: 'every_paragraph',
      include_markers: true,
      timecodes: { on_paragraphs: true, offset_seconds: 3600 },
    });
    expect(txt.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(txt.text).toMatch(/^\[Marker: Intro\]\n\[01:00:00\] \w+( \(guest\))?: /);
    const paragraphs = txt.text.trim().split('\n\n');
    expect(paragraphs.every((p) => /\[\d{2}:\d{2}:\d{2}\] [^:]+: /.test(p))).toBe(true);

    const changes = await exportAs({ format: 'txt' });
    const labelled = changes.text
      .trim()
      .split('\n\n')
      .filter((p) => /^[A-Z][a-z]+( \(guest\))?: /.test(p));
    expect(labelled.length).toBeGreaterThan(0);
    expect(labelled.length).toBeLessThanOrEqual(paragraphs.length);

    const markdown = await exportAs({ format: 'markdown' });
    expect(markdown.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(markdown.text).toMatch(/^# .+\n\n\*\*\w+/);
    const html = await exportAs({ format: 'html' });
    expect(html.text).toMatch(/^<!DOCTYPE html>/);
    expect(html.text).toContain('<p><strong>');
    const rtf = await exportAs({ format: 'rtf' });
    expect(rtf.headers.get('content-type')).toBe('application/rtf');
    expect(rtf.text.startsWith('{\\rtf1')).toBe(true);
  });

  it('picks a composition by short id or project URL', async () => {
    const last = project.compositions.at(-1);
    const short = last.id.slice(0, 5);
    for (const reference of [last.id, short, `https://web.descript.com/${project.id}/${short}`]) {
      const answer = await exportAs({ format: 'txt', composition_id: reference });
      expect(answer.headers.get('x-composition-id')).toBe(last.id);
    }
    const missing = await exportAs({ format: 'txt', composition_id: 'zzzzz' });
    expect(missing.status).toBe(404);
  });

  it('refuses docx and a missing format', async () => {
    expect((await exportAs({ format: 'docx' })).status).toBe(400);
    const missing = await exportAs({});
    expect(missing.json).toEqual({ error: 'invalid_input', message: 'format is required' });
  });
});
