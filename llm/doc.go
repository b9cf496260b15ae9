// Package llm speaks the chat-completions protocol that OpenAI-compatible
// endpoints share (hosted services, Ollama, vLLM, llama.cpp servers) and
// keeps cassettes of what they answered.
//
// A Request is normalized into a canonical form whose sha256 is its
// fingerprint: the model, the messages, the response schema, the decoding
// parameters and the version of the prompt template that wrote the
// messages. Nothing volatile (request ids, timestamps, streaming flags,
// the API key) is part of it, so the same question asked twice has the
// same fingerprint.
//
// A Cassette is a directory of recorded answers, one file per
// fingerprint, holding the exact response bytes. A Caller puts a Client
// and a Cassette together in one of three modes: live asks the endpoint,
// record asks it and keeps the answer, replay answers only from the
// cassette and fails with a *MissError naming the fingerprint otherwise.
package llm
