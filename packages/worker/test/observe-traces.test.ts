import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startInsuranceSimulator } from '@plugboard/simulator-insurance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, submitRun } from '../src/index.js';
import { fleet, insurance } from './support/fleet.js';

const state = fleet();
const exporter = new InMemorySpanExporter();
// The credential the provider asks for: it must be in no span's attributes.
const CANARY = 'canary-key-7f3a9c1e5b2d4086';

beforeAll(() => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});

afterAll(() => {
  trace.disable();
  context.disable();
  propagation.disable();
});

describe('traces', () => {
  it("joins a run's span to the submitter's trace, a span per provider request inside it, no secret in any attribute", async () => {
    const simulator = await startInsuranceSimulator({ apiKey: CANARY });
    const running = await startWorker({
      redis: state.redis.url,
      postgres: state.db.url,
      connectors: [insurance],
      concurrency: 1,
      resolveCredential: () => CANARY,
    });
    try {
      const tracer = trace.getTracer('submitter');
      const submitter = await tracer.startActiveSpan('submit', async (span) => {
        const done = await submitRun({
          redis: state.redis.url,
          postgres: state.db.url,
          connectors: [insurance],
          connector: 'insurance',
          action: 'travel_policies.list',
          input: { page_size: 1 },
          connection: { id: 'conn-1', baseUrl: simulator.url },
          follow: {},
        });
        expect(done.run?.status).toBe('succeeded');
        span.end();
        return span.spanContext();
      });
      await running.close();
      const spans = exporter.getFinishedSpans();
      const runs = spans.filter((span) => span.name === 'plugboard.run');
      expect(runs).toHaveLength(1);
      const [run] = runs;
      expect(run!.spanContext().traceId).toBe(submitter.traceId);
      expect(run!.parentSpanContext?.spanId).toBe(submitter.spanId);
      expect(run!.attributes).toMatchObject({
        'plugboard.connector': 'insurance',
        'plugboard.action': 'travel_policies.list',
      });
      const requests = spans.filter((span) => span.name === 'plugboard.http');
      expect(requests.length).toBeGreaterThan(0);
      expect(requests).toHaveLength(simulator.counters().requests);
      for (const request of requests) {
        expect(request.spanContext().traceId).toBe(submitter.traceId);
        expect(request.parentSpanContext?.spanId).toBe(run!.spanContext().spanId);
        expect(request.attributes['http.response.status_code']).toBe('200');
      }
      for (const span of spans)
        for (const [name, value] of Object.entries(span.attributes)) {
          expect(name).not.toContain(CANARY);
          expect(JSON.stringify(value)).not.toContain(CANARY);
        }
    } finally {
      await running.close();
      await simulator.close();
    }
  });
});
