import { readFileSync } from 'node:fs';
import { entityId } from '@plugboard/sdk';
import { catalogueEntry } from '@plugboard/sdk/host';
import { describe, expect, it } from 'vitest';
import descript, { createDescriptConnector, LIMITATIONS } from '../src/index.js';
import { fixedClockDescript } from './support.js';

const SOURCES = [
  'agent_models.list',
  'compositions.list',
  'drive_items.search',
  'jobs.get',
  'jobs.list',
  'media_files.list',
  'projects.get',
  'projects.list',
  'published_projects.get',
  'publishes.list',
  'status.get',
  'transcripts.get',
];
const DESTINATIONS = ['agent_edits.create', 'media_imports.create'];
const ENTITIES = [
  'AgentModel',
  'Composition',
  'DriveItem',
  'DriveStatus',
  'Job',
  'JobReceipt',
  'MediaFile',
  'Project',
  'ProjectDetail',
  'Publish',
  'PublishedProject',
  'Transcript',
];

describe('the Descript connector definition', () => {
  const entry = catalogueEntry(descript);

  it('has the catalogue identity the design names', () => {
    expect(entry).toMatchObject({
      key: 'descript',
      name: 'Descript',
      vendor: 'Descript',
      category: 'media',
      categoryLabel: 'Media & video',
      status: 'beta',
      implemented: true,
      authentication: {
        schemes: [{ type: 'bearer', header: 'Authorization', default: true }],
        baseUrl: 'https://descriptapi.com/v1',
        baseUrlOverridable: true,
      },
    });
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest['plugboard']).toEqual({ connector: './dist/index.js', sdk: '^0.1.0' });
    expect(entry.version).toBe(manifest['version']);
  });

  it('shows 12 source actions, 2 destination actions and 12 data types', () => {
    const operations = entry.operations;
    expect(operations.filter((operation) => operation.mode === 'source').map((operation) => operation.key)).toEqual(
      SOURCES,
    );
    expect(
      operations.filter((operation) => operation.mode === 'destination').map((operation) => operation.key),
    ).toEqual(DESTINATIONS);
    expect([...new Set(operations.map((operation) => operation.entity))].sort()).toEqual(ENTITIES);
    expect(new Set(descript.actions.map((action) => entityId(action.entity))).size).toBe(12);
  });

  it('makes both destinations billable writes (never retried, approved before production), the agent edit destructive; the sources read only', () => {
    for (const operation of entry.operations) {
      if (operation.mode === 'destination') {
        expect(operation, operation.key).toMatchObject({
          approvalRequired: true,
          approval: 'production',
          billable: true,
          retry: 'never',
          effect: { writes: true, idempotent: false, destructive: operation.key === 'agent_edits.create' },
        });
      } else {
        expect(operation, operation.key).toMatchObject({
          approvalRequired: false,
          approval: 'none',
          billable: false,
          retry: 'safe',
          effect: { writes: false, idempotent: true, destructive: false },
        });
      }
    }
  });

  it('reads projects and jobs incrementally, and gives published_projects.get its own budget of 1,000 an hour per connection', () => {
    const byKey = new Map(entry.operations.map((operation) => [operation.key, operation]));
    expect(byKey.get('projects.list')?.incremental).toEqual({ cursorField: 'updated_at', checkpointVersion: 1 });
    expect(byKey.get('jobs.list')?.incremental).toEqual({ cursorField: 'created_at', checkpointVersion: 1 });
    expect(entry.operations.filter((operation) => operation.incremental).map((operation) => operation.key)).toEqual([
      'jobs.list',
      'projects.list',
    ]);
    expect(entry.rateLimits).toEqual({ 'published_projects.get': { limit: 1000, per: 'hour', scope: 'connection' } });
    expect(byKey.get('published_projects.get')?.rateBudget).toBe('published_projects.get');
  });

  it('publishes its limitations in the catalogue entry', () => {
    expect(LIMITATIONS.length).toBeGreaterThan(0);
    expect(entry.limitations).toEqual(LIMITATIONS);
  });

  it('tests the default export: the fixed-clock connector of the fixtures has the same definition and catalogue entry', () => {
    expect(catalogueEntry(fixedClockDescript)).toEqual(entry);
    expect(catalogueEntry(createDescriptConnector())).toEqual(entry);
  });
});
