#!/usr/bin/env node
// The Vercel AI SDK's parsePartialJson as a toolfuzz target at level partial,
// over the subprocess protocol (docs/subprocess.md and docs/levels.md in
// toolfuzz): each request is one prefix of a call's argument text, and the
// answer is the value parsePartialJson gives for it, the value its UI
// helpers show while a tool call streams.  A result whose state is
// "failed-parse" or "undefined-input" shows nothing (null).  JavaScript has
// one number type, so the handshake does not claim exact-numbers: toolfuzz
// compares numbers as IEEE doubles.  Its strings are UTF-16 code units, so it
// claims utf16-strings: a string still arriving may end in the first half of
// a pair.  Nothing here touches the network.
'use strict';

const readline = require('node:readline');
const { parsePartialJson } = require('ai');
const { version } = require('ai/package.json');

const PROTOCOL = 'toolfuzz-subprocess/1';

function send(doc) {
  process.stdout.write(JSON.stringify(doc) + '\n');
}

async function answer(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (e) {
    return { protocol_error: `request is not JSON: ${e.message}` };
  }
  if (typeof request.text !== 'string') {
    return { protocol_error: 'request has no text' };
  }
  try {
    const { value, state } = await parsePartialJson(request.text);
    return { value: state === 'failed-parse' || state === 'undefined-input' || value === undefined ? null : value };
  } catch (e) {
    const type = (e && e.constructor && e.constructor.name) || typeof e;
    return { error: { type, message: String(e && e.message !== undefined ? e.message : e) } };
  }
}

async function main() {
  send({
    protocol: PROTOCOL,
    name: 'ai-sdk-parse-partial-json',
    version,
    level: 'partial',
    claims: ['utf16-strings'],
    dialects: ['openai-chat', 'openai-responses', 'anthropic'],
    // parsePartialJson reads a prefix of a JSON text without raising: what it is for (docs/severity.md).
    scope: { specs: ['json'], promises: ['raised_on_prefix'], surface: 'parsePartialJson from ai' },
  });
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    send(await answer(line));
  }
}

main();
