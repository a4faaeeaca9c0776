#!/usr/bin/env node
// The openai npm package's chat-completion stream accumulator as a toolfuzz
// target, over the subprocess protocol (docs/subprocess.md in toolfuzz).
//
//   node assemble.js            level events: the parsed chunks go through
//                               ChatCompletionStream.fromReadableStream(), the
//                               package's offline entry point to its accumulator
//   node assemble.js --client   level bytes: the real OpenAI client, whose only
//                               fake part is a fetch serving the case's network
//                               reads, read with chat.completions.stream()
//
// Either way the calls are those of finalChatCompletion(), the documented way
// to read the result.  The package has no notion of a complete call; a user
// checks the choice's finish_reason, so a call counts as complete when its
// choice finished with tool_calls or stop.  When finalChatCompletion() refuses
// an unfinished stream ("missing finish_reason"), the calls are read from the
// last snapshot the stream handed out with its 'chunk' event, which is what a
// user watching the stream has.  Anything else it throws is reported as the
// exception it is.  Nothing here touches the network.
'use strict';

const readline = require('node:readline');
const OpenAI = require('openai');
const { ChatCompletionStream } = require('openai/lib/ChatCompletionStream');
const { VERSION } = require('openai/version');

const PROTOCOL = 'toolfuzz-subprocess/1';
const COMPLETING = new Set(['tool_calls', 'stop']);
const CLIENT = process.argv.includes('--client');

function send(doc) {
  process.stdout.write(JSON.stringify(doc) + '\n');
}

function callsOf(choices) {
  const calls = [];
  // forEach skips the holes of sparse arrays, as the package's own snapshot can have.
  (choices || []).forEach((choice) => {
    if (!choice) return;
    const complete = COMPLETING.has(choice.finish_reason);
    ((choice.message && choice.message.tool_calls) || []).forEach((call, position) => {
      const fn = call.function || {};
      calls.push({
        choice: choice.index,
        // The final completion drops the wire's index: a call's place in the list is all a user has.
        index: position,
        id: call.id ?? null,
        name: fn.name ?? null,
        arguments: fn.arguments ?? '',
        complete,
      });
    });
  });
  return calls;
}

async function finalCalls(stream) {
  let snapshot;
  stream.on('chunk', (chunk, current) => {
    snapshot = current;
  });
  // Without a listener the runner reports its failure as an unhandled rejection as well.
  stream.on('error', () => {});
  try {
    return callsOf((await stream.finalChatCompletion()).choices);
  } catch (e) {
    if (snapshot && /missing finish_reason/.test(String(e && e.message))) {
      return callsOf(snapshot.choices);
    }
    throw e;
  }
}

function fromChunks(chunks) {
  const encoder = new TextEncoder();
  const body = new ReadableStream({
    start(controller) {
      // fromReadableStream reads what toReadableStream() writes: one JSON chunk per line.
      for (const chunk of chunks) controller.enqueue(encoder.encode(JSON.stringify(chunk) + '\n'));
      controller.close();
    },
  });
  return ChatCompletionStream.fromReadableStream(body);
}

function fromReads(reads) {
  const fetch = async () => {
    const body = new ReadableStream({
      start(controller) {
        for (const read of reads) controller.enqueue(new Uint8Array(Buffer.from(read, 'base64')));
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  // An explicit key and base URL so that nothing comes from the environment;
  // no retries, so that a failure is seen once, as the user sees it.
  const client = new OpenAI({ apiKey: 'toolfuzz', baseURL: 'http://toolfuzz.invalid/v1', maxRetries: 0, fetch });
  return client.chat.completions.stream({ model: 'x', messages: [{ role: 'user', content: 'toolfuzz' }] });
}

async function answer(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (e) {
    return { protocol_error: `request is not JSON: ${e.message}` };
  }
  const input = CLIENT ? request.reads : request.chunks;
  if (!Array.isArray(input)) {
    return { protocol_error: `request has no ${CLIENT ? 'reads' : 'chunks'} list` };
  }
  try {
    return { calls: await finalCalls(CLIENT ? fromReads(input) : fromChunks(input)) };
  } catch (e) {
    const type = (e && e.constructor && e.constructor.name) || typeof e;
    return { error: { type, message: String(e && e.message !== undefined ? e.message : e) } };
  }
}

async function main() {
  send({
    protocol: PROTOCOL,
    name: CLIENT ? 'openai-node-client' : 'openai-node-stream',
    version: VERSION,
    level: CLIENT ? 'bytes' : 'events',
    claims: ['ids', 'names', 'completion'],
    dialects: ['openai-chat'],
    // openai-node promises OpenAI's and Azure's API; its types give ids as strings (docs/severity.md).
    scope: { servers: ['openai', 'azure'], integer_ids: false,
             surface: CLIENT ? 'OpenAI.chat.completions.stream()' : 'ChatCompletionStream.fromReadableStream()' },
  });
  // One request at a time, answered in order; the loop ends when toolfuzz closes stdin.
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    send(await answer(line));
  }
}

main();
