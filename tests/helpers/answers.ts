import { readFile, writeFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { format, resolveConfig } from 'prettier';
import { expect } from 'vitest';

/**
 * Answers of the real server that browser tests reply with instead of invented bodies. A recorder test
 * asks the in-process app, writes what it said with RECORD_FIXTURES=1, and otherwise checks that the
 * file still says the same (same shapes, same words; numbers and ids may differ from run to run).
 */
export interface RecordedAnswer {
  /** What was asked, as the browser sends it (the path without `/api`). */
  request: { method: string; path: string; payload?: unknown };
  status: number;
  body: unknown;
}

export const RECORDING = process.env.RECORD_FIXTURES === '1';

/** The shape of an answer and the words of its texts, with numbers, ids and times left out. */
export function form(value: unknown): unknown {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string') {
    if (/^[0-9a-f-]{36}$/.test(value)) return 'id';
    if (/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(value)) return 'time';
    return value.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, 'id').replace(/\d[\d,.]*/g, '#');
  }
  if (Array.isArray(value)) return value.map(form);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, form(v)]));
  }
  return value;
}

export class AnswerBook {
  readonly answers: Record<string, RecordedAnswer> = {};

  constructor(
    private readonly app: FastifyInstance,
    /** The JSON file the browser tests import. */
    private readonly file: string,
    /** The npm script that records the file again. */
    private readonly script: string,
  ) {}

  /** Asks the app and records its answer under `name`; answers the parsed body. */
  async ask<T = unknown>(
    name: string,
    auth: { authorization: string },
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    payload?: object,
  ): Promise<T> {
    if (name in this.answers) throw new Error(`${name} is recorded twice`);
    const res = await this.app.inject({
      method,
      url: `/api${path}`,
      headers: auth,
      ...(payload === undefined ? {} : { payload }),
    });
    const body: unknown = res.body === '' ? null : res.json();
    this.answers[name] = {
      request: { method, path, ...(payload === undefined ? {} : { payload }) },
      status: res.statusCode,
      body,
    };
    return body as T;
  }

  /** Writes the file when recording, formatted as the repository's other files are. */
  async save(): Promise<void> {
    if (!RECORDING) return;
    const options = (await resolveConfig(this.file)) ?? {};
    await writeFile(this.file, await format(JSON.stringify(this.answers), { ...options, parser: 'json' }));
  }

  /** Every recorded answer is what the app answers now. */
  async expectCurrent(): Promise<void> {
    const recorded = JSON.parse(await readFile(this.file, 'utf8')) as Record<string, RecordedAnswer>;
    expect(Object.keys(recorded).sort(), `run npm run ${this.script}`).toEqual(
      Object.keys(this.answers).sort(),
    );
    for (const [name, answer] of Object.entries(this.answers)) {
      expect(form(recorded[name]), `${name}: run npm run ${this.script}`).toEqual(form(answer));
    }
  }
}
