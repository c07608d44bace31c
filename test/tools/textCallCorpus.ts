/**
 * Replies that hold (or do not hold) tool calls written as text, taken from the published tests
 * of the servers whose parsers read them: vLLM (tests/entrypoints/openai/tool_parsers/,
 * tests/tool_use/), llama.cpp (tests/chat-parsers/, tests/test-chat.cpp) and Ollama
 * (tools/tools_test.go, model/parsers/*_test.go). Each case names its source; a case where cairn
 * decides otherwise than that server says how and why (`differs`). The tool names are the
 * sources' own; `TOOLS` gives each the schema cairn validates its arguments against, so a
 * positive's `calls` are the arguments after validation, as a tool would get them.
 */
import { z } from "zod";
import type { CallFamily } from "../../src/tools/textCalls/reply.js";

export interface CorpusCase {
  family: CallFamily;
  /** Project, file and test the reply comes from. */
  source: string;
  reply: string;
  /** The calls cairn makes, with their arguments after validation; none for a negative. */
  calls: Array<{ name: string; args: Record<string, unknown> }>;
  /** Not made, and not an answer either: the model is asked again. */
  unexecuted?: true;
  /** The model was told to write its calls as fenced JSON (`tool_calls: text`). */
  textMode?: true;
  /** Where the source's parser decides otherwise, and why cairn does not follow it. */
  differs?: string;
}

const loose = z.looseObject({});

/** The tools the cases' sources offer, with the types their tests convert arguments to. */
export const TOOLS: Record<string, z.ZodType> = {
  get_conditions: loose,
  get_temperature: loose,
  say_hello: loose,
  say_hello_world: loose,
  get_address: loose,
  add: loose,
  multiply: loose,
  add_this_and_that: loose,
  get_age: loose,
  bash: loose,
  special_function: z.object({ arg1: z.number().int() }),
  python: z.object({ code: z.string() }),
  searchTool: loose,
  getOpenIncidentsTool: loose,
  complexTool: loose,
  simpleTool: loose,
  parserTool: loose,
  internet_search: loose,
  get_current_temperature: loose,
  get_current_weather: loose,
  calculate_area: z.object({
    shape: z.string(),
    dimensions: z.record(z.string(), z.number()),
    precision: z.number().int(),
  }),
  test_types: z.object({
    int_param: z.number().int(),
    float_param: z.number(),
    bool_param: z.boolean(),
    str_param: z.string(),
    obj_param: z.record(z.string(), z.unknown()),
  }),
  exec: loose,
  获取天气: loose,
  get_weather: loose,
  get_time: loose,
  process_data: loose,
  ping: loose,
  refresh: loose,
  code_interpreter: loose,
  test_function: loose,
};

const OLLAMA_TOOLS = "Ollama tools/tools_test.go TestParser";
const LLAMACPP_HERMES = "llama.cpp tests/chat-parsers/test-hermes-2-pro.cpp test_hermes_2_pro_parser";
const VLLM_QWEN3CODER = "vLLM tests/tool_use/test_qwen3coder_tool_parser.py";
const OLLAMA_QWEN3CODER = "Ollama model/parsers/qwen3coder_test.go TestQwenToolParser";
const VLLM_MISTRAL = "vLLM test_mistral_tool_parser.py";
const VLLM_LLAMA = "vLLM tests/entrypoints/openai/tool_parsers/test_llama3_json_tool_parser.py";
const LLAMACPP_LLAMA = "llama.cpp tests/chat-parsers/test-llama-3-x.cpp test_llama_3_x_parser";
const OLLAMA_DEEPSEEK = "Ollama model/parsers/deepseek3_test.go";
const VLLM_GRANITE = "vLLM tests/entrypoints/openai/tool_parsers/test_granite_tool_parser.py";

const weather = { city: "San Francisco", state: "CA", unit: "celsius" };

export const CORPUS: CorpusCase[] = [
  // --- Hermes, Qwen2.5: <tool_call>{json}</tool_call> ---
  {
    family: "hermes",
    source: `${OLLAMA_TOOLS} "tool call"`,
    reply: '<tool_call>{"name": "get_conditions", "arguments": {"location": "San Francisco"}}</tool_call>',
    calls: [{ name: "get_conditions", args: { location: "San Francisco" } }],
  },
  {
    family: "hermes",
    source: `${OLLAMA_TOOLS} "empty args"`,
    reply: '<tool_call>{"name": "get_conditions", "arguments": {}}</tool_call>',
    calls: [{ name: "get_conditions", args: {} }],
  },
  {
    family: "hermes",
    source: `${OLLAMA_TOOLS} "text before tool call"`,
    reply:
      'Let me check the weather. <tool_call>{"name": "get_temperature", "arguments": {"city": "New York"}}</tool_call>',
    calls: [{ name: "get_temperature", args: { city: "New York" } }],
  },
  {
    family: "hermes",
    source: `${OLLAMA_TOOLS} "qwen two tool calls"`,
    reply:
      'Okay, let\'s call both tools! <tool_call>{"name": "get_temperature", "arguments": {"city": "London", "format": "fahrenheit"}}</tool_call><tool_call>{"name": "get_conditions", "arguments": {"location": "Tokyo"}}</tool_call>',
    calls: [
      { name: "get_temperature", args: { city: "London", format: "fahrenheit" } },
      { name: "get_conditions", args: { location: "Tokyo" } },
    ],
  },
  {
    family: "hermes",
    source: `${OLLAMA_TOOLS} "qwen empty followed by args" (the second call left open at the end)`,
    reply:
      'Let me check the weather. <tool_call>{"name": "get_conditions", "arguments": {}}</tool_call><tool_call>{"name": "get_conditions", "arguments": {"location": "Tokyo"}}',
    calls: [
      { name: "get_conditions", args: {} },
      { name: "get_conditions", args: { location: "Tokyo" } },
    ],
  },
  {
    family: "hermes",
    source: `${OLLAMA_TOOLS} "args before name"`,
    reply: '<tool_call>{"arguments": {"a": "5", "b": "10"}, "name": "add"}</tool_call>',
    calls: [{ name: "add", args: { a: "5", b: "10" } }],
  },
  {
    family: "hermes",
    source: `${OLLAMA_TOOLS} "tool name with collision multiple"`,
    reply:
      '<tool_call>{"name": "say_hello_world","arguments": {}}</tool_call><tool_call>{"name": "say_hello","arguments": {}}</tool_call>',
    calls: [
      { name: "say_hello_world", args: {} },
      { name: "say_hello", args: {} },
    ],
  },
  {
    family: "hermes",
    source: `${LLAMACPP_HERMES} (message_assist_call)`,
    reply: '<tool_call>\n{"name": "special_function", "arguments": {"arg1": 1}}\n</tool_call>',
    calls: [{ name: "special_function", args: { arg1: 1 } }],
  },
  {
    family: "hermes",
    source: `${LLAMACPP_HERMES} (message_assist_call_content)`,
    reply:
      'Hello, world!\nWhat\'s up?<tool_call>\n{"name": "special_function", "arguments": {"arg1": 1}}\n</tool_call>',
    calls: [{ name: "special_function", args: { arg1: 1 } }],
  },
  {
    family: "hermes",
    source: `${LLAMACPP_HERMES} (message_assist_call_thoughts: QwQ's reasoning before the call)`,
    reply:
      'I\'m\nthinking</think>\n<tool_call>{"name": "special_function", "arguments": {"arg1": 1}}</tool_call>',
    calls: [{ name: "special_function", args: { arg1: 1 } }],
  },
  {
    family: "hermes",
    source: `${LLAMACPP_HERMES} (message_assist_multiple_calls)`,
    reply:
      '<tool_call>\n{"name": "special_function", "arguments": {"arg1": 1}}\n</tool_call>\n<tool_call>\n{"name": "python", "arguments": {"code":"print(\'hello\')"}}\n</tool_call>',
    calls: [
      { name: "special_function", args: { arg1: 1 } },
      { name: "python", args: { code: "print('hello')" } },
    ],
  },
  {
    family: "hermes",
    source:
      "vLLM tests/entrypoints/openai/tool_parsers/test_hermes_tool_parser.py NO_STREAM_FUNCTION_OUTPUT (QwQ-32B; its reasoning shortened)",
    reply:
      '好的，用户现在要研发一个5MW的燃气轮机，需要确定总体参数。\n</think>\n\n<tool_call>\n{"name": "internet_search", "arguments": {"question": "5MW燃气轮机设计参数 空气流量 压气机压比 转速 燃烧室出口温度 压气机级数 支点布局"}}\n</tool_call>\n\n ',
    calls: [
      {
        name: "internet_search",
        args: { question: "5MW燃气轮机设计参数 空气流量 压气机压比 转速 燃烧室出口温度 压气机级数 支点布局" },
      },
    ],
  },
  {
    family: "hermes",
    source: `${VLLM_GRANITE} various_data_types_output (Granite 3.1's <tool_call> without a closing tag)`,
    reply:
      '<tool_call> [{\n  "name": "test_function",\n  "arguments": {\n    "string_field": "hello",\n    "int_field": 42,\n    "float_field": 3.14,\n    "bool_field": true,\n    "null_field": null,\n    "array_field": ["a", "b", "c"],\n    "object_field": {"nested": "value"}\n  }\n}]',
    calls: [
      {
        name: "test_function",
        args: {
          string_field: "hello",
          int_field: 42,
          float_field: 3.14,
          bool_field: true,
          null_field: null,
          array_field: ["a", "b", "c"],
          object_field: { nested: "value" },
        },
      },
    ],
  },
  {
    family: "hermes",
    source: `${OLLAMA_TOOLS} "no tool calls - just text"`,
    reply: "Hello, how can I help you today?",
    calls: [],
  },
  {
    family: "hermes",
    source: `${OLLAMA_TOOLS} "qwen no args with text"`,
    reply: "Let me say hello to the user. I'll use the say_hello tool. ",
    calls: [],
  },
  {
    family: "hermes",
    source: `${LLAMACPP_HERMES} (a call inside \`\`\`xml and <response>)`,
    reply: '```xml\n<response>\n    {"name": "special_function", "arguments": {"arg1": 1}}\n</response>\n```',
    calls: [],
    differs:
      "llama.cpp makes the call: it reads <response>, <tool>, <json> and fenced blocks as calls for Hermes 2 Pro. cairn reads a fence as code being shown, unless it is cairn's own form or the whole reply is one JSON call.",
  },
  {
    family: "hermes",
    source: `${LLAMACPP_HERMES} (<tool> wrapper)`,
    reply: '<tool>\n  {"name": "special_function", "arguments": {"arg1": 1}}\n</tool>',
    calls: [],
    differs:
      "llama.cpp accepts <tool>, <tools>, <response>, <json> and <xml> as Hermes wrappers; cairn reads only the template's own <tool_call>.",
  },
  {
    family: "hermes",
    source: "cairn: the same call quoted in a Markdown block the person asked to see (issue 39)",
    reply:
      'A Qwen2.5 model writes its call like this:\n\n```xml\n<tool_call>{"name": "get_conditions", "arguments": {"location": "Paris"}}</tool_call>\n```\n\nThe server turns it into a tool call.',
    calls: [],
    differs: "vLLM's and Ollama's Hermes parsers find <tool_call> anywhere, fences or not.",
  },
  {
    family: "hermes",
    source: "cairn: a call in an inline code span (issue 39)",
    reply:
      'Use `<tool_call>{"name": "get_conditions", "arguments": {"location": "Paris"}}</tool_call>` to ask for the weather.',
    calls: [],
    differs: "vLLM's and Ollama's Hermes parsers find <tool_call> anywhere.",
  },
  {
    family: "hermes",
    source: "cairn: an example in an explanation, prose on both sides (issue 39)",
    reply:
      'Qwen calls a tool by writing <tool_call>{"name": "get_conditions", "arguments": {"location": "Paris"}}</tool_call> and the server reads it.',
    calls: [],
    unexecuted: true,
    differs:
      "vLLM and Ollama make the call and keep the text around it. cairn neither makes it nor takes the reply as its answer: the model is asked to end its reply with the call, or to quote it in a code block.",
  },
  // --- Qwen3-Coder: <tool_call><function=…><parameter=…> ---
  {
    family: "qwen3-coder",
    source: `${VLLM_QWEN3CODER} test_extract_tool_calls[single_tool]`,
    reply:
      "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>",
    calls: [{ name: "get_current_weather", args: { city: "Dallas", state: "TX", unit: "fahrenheit" } }],
  },
  {
    family: "qwen3-coder",
    source: `${VLLM_QWEN3CODER} test_extract_tool_calls[single_tool_with_content]`,
    reply:
      "Sure! Let me check the weather for you.<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>",
    calls: [{ name: "get_current_weather", args: { city: "Dallas", state: "TX", unit: "fahrenheit" } }],
  },
  {
    family: "qwen3-coder",
    source: `${VLLM_QWEN3CODER} test_extract_tool_calls[single_tool_multiline_param]`,
    reply:
      '<tool_call>\n<function=calculate_area>\n<parameter=shape>\nrectangle\n</parameter>\n<parameter=dimensions>\n{"width": 10, \n "height": 20}\n</parameter>\n<parameter=precision>\n2\n</parameter>\n</function>\n</tool_call>',
    calls: [
      {
        name: "calculate_area",
        args: { shape: "rectangle", dimensions: { width: 10, height: 20 }, precision: 2 },
      },
    ],
  },
  {
    family: "qwen3-coder",
    source: `${VLLM_QWEN3CODER} test_extract_tool_calls[parallel_tools]`,
    reply:
      "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=get_current_weather>\n<parameter=city>\nOrlando\n</parameter>\n<parameter=state>\nFL\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>",
    calls: [
      { name: "get_current_weather", args: { city: "Dallas", state: "TX", unit: "fahrenheit" } },
      { name: "get_current_weather", args: { city: "Orlando", state: "FL", unit: "fahrenheit" } },
    ],
  },
  {
    family: "qwen3-coder",
    source: `${VLLM_QWEN3CODER} test_extract_tool_calls_type_conversion`,
    reply:
      '<tool_call>\n<function=test_types>\n<parameter=int_param>\n42\n</parameter>\n<parameter=float_param>\n3.14\n</parameter>\n<parameter=bool_param>\ntrue\n</parameter>\n<parameter=str_param>\nhello world\n</parameter>\n<parameter=obj_param>\n{"key": "value"}\n</parameter>\n</function>\n</tool_call>',
    calls: [
      {
        name: "test_types",
        args: {
          int_param: 42,
          float_param: 3.14,
          bool_param: true,
          str_param: "hello world",
          obj_param: { key: "value" },
        },
      },
    ],
  },
  {
    family: "qwen3-coder",
    source: `${VLLM_QWEN3CODER} test_extract_tool_calls_fallback_no_tags`,
    reply:
      "<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n</function>",
    calls: [{ name: "get_current_weather", args: { city: "Dallas", state: "TX" } }],
  },
  {
    family: "qwen3-coder",
    source: `${OLLAMA_QWEN3CODER} "ampersands in parameter values"`,
    reply:
      '<tool_call>\n<function=exec>\n<parameter=command>\nls && echo "done"\n</parameter>\n</function>\n</tool_call>',
    calls: [{ name: "exec", args: { command: 'ls && echo "done"' } }],
  },
  {
    family: "qwen3-coder",
    source: `${OLLAMA_QWEN3CODER} "angle brackets in parameter values"`,
    reply:
      '<tool_call>\n<function=exec>\n<parameter=command>\nls && echo "a > b and a < b"\n</parameter>\n</function>\n</tool_call>',
    calls: [{ name: "exec", args: { command: 'ls && echo "a > b and a < b"' } }],
  },
  {
    family: "qwen3-coder",
    source: `${OLLAMA_QWEN3CODER} "unicode in function names and parameters"`,
    reply:
      "<tool_call>\n<function=获取天气>\n<parameter=城市>\n北京\n</parameter>\n<parameter=message>\nHello! 你好! 🌟 مرحبا\n</parameter>\n</function>\n</tool_call>",
    calls: [{ name: "获取天气", args: { 城市: "北京", message: "Hello! 你好! 🌟 مرحبا" } }],
  },
  {
    family: "qwen3-coder",
    source: `${LLAMACPP_HERMES} (<function=name>{json}</function>, the functionary form)`,
    reply: '<function=special_function>{"arg1": 1}</function>',
    calls: [{ name: "special_function", args: { arg1: 1 } }],
  },
  {
    family: "qwen3-coder",
    source: 'Ollama model/parsers/qwen3coder_test.go TestQwenParserStreaming "partial tool open tag fakeout"',
    reply: "abc\n<tool_call fakeout",
    calls: [],
  },
  {
    family: "qwen3-coder",
    source: `${VLLM_QWEN3CODER} test_extract_tool_calls_no_tools`,
    reply: "This is a test response without any tool calls",
    calls: [],
  },
  // --- Mistral: [TOOL_CALLS] ---
  {
    family: "mistral",
    source: `${VLLM_MISTRAL} test_extract_tool_calls_pre_v11_tokenizer[single_tool_add]`,
    reply: '[TOOL_CALLS][{"name": "add", "arguments":{"a": 3.5, "b": 4}}]',
    calls: [{ name: "add", args: { a: 3.5, b: 4 } }],
  },
  {
    family: "mistral",
    source: `${VLLM_MISTRAL} test_extract_tool_calls_pre_v11_tokenizer[argument_before_name_and_name_in_argument]`,
    reply: '[TOOL_CALLS] [{"arguments":{"name": "John Doe"}, "name": "get_age"}]',
    calls: [{ name: "get_age", args: { name: "John Doe" } }],
  },
  {
    family: "mistral",
    source: `${VLLM_MISTRAL} test_extract_tool_calls_pre_v11_tokenizer[multiple_tools]`,
    reply:
      '[TOOL_CALLS] [{"name": "add", "arguments": {"a": 3.5, "b": 4}}, {"name": "get_current_weather", "arguments":{"city": "San Francisco", "state": "CA", "unit": "celsius"}}]',
    calls: [
      { name: "add", args: { a: 3.5, b: 4 } },
      { name: "get_current_weather", args: weather },
    ],
  },
  {
    family: "mistral",
    source: `${VLLM_MISTRAL} test_extract_tool_calls_pre_v11_tokenizer[content_before_tool]`,
    reply: 'Hello[TOOL_CALLS] [{"name": "add", "arguments":{"a": 1, "b": 2}}]',
    calls: [{ name: "add", args: { a: 1, b: 2 } }],
  },
  {
    family: "mistral",
    source: `${VLLM_MISTRAL} test_extract_tool_calls[single_tool_add] (v11 tokenizer)`,
    reply: '[TOOL_CALLS]add_this_and_that{"a": 3.5, "b": 4}',
    calls: [{ name: "add_this_and_that", args: { a: 3.5, b: 4 } }],
  },
  {
    family: "mistral",
    source: `${VLLM_MISTRAL} test_extract_tool_calls[multiple_tool_calls] (v11 tokenizer)`,
    reply: '[TOOL_CALLS]add{"a": 3.5, "b": 4}[TOOL_CALLS]multiply{"a": 3, "b": 6}',
    calls: [
      { name: "add", args: { a: 3.5, b: 4 } },
      { name: "multiply", args: { a: 3, b: 6 } },
    ],
  },
  {
    family: "mistral",
    source: `${VLLM_MISTRAL} test_extract_tool_calls[wrong_json] (v11 tokenizer)`,
    reply: 'hi{hi[TOOL_CALLS]bash{"command": "print(\\"hello world!\\")\\nre.compile(r\'{}\')"}',
    calls: [{ name: "bash", args: { command: "print(\"hello world!\")\nre.compile(r'{}')" } }],
  },
  {
    family: "mistral",
    source: "Ollama model/parsers/ministral_test.go (Ministral's [ARGS] form)",
    reply: '[TOOL_CALLS]get_weather[ARGS]{"location": "San Francisco"}',
    calls: [{ name: "get_weather", args: { location: "San Francisco" } }],
  },
  {
    family: "mistral",
    source: `${OLLAMA_TOOLS} "two tool calls in a list" (with [/TOOL_CALLS])`,
    reply:
      '[TOOL_CALLS] [{"name": "get_temperature", "arguments": {"city": "London", "format": "fahrenheit"}}, {"name": "get_conditions", "arguments": {"location": "Tokyo"}}][/TOOL_CALLS]',
    calls: [
      { name: "get_temperature", args: { city: "London", format: "fahrenheit" } },
      { name: "get_conditions", args: { location: "Tokyo" } },
    ],
  },
  {
    family: "mistral",
    source: 'Ollama model/parsers/ministral_test.go ("abc[TOOL" then " not a tag")',
    reply: "abc[TOOL not a tag",
    calls: [],
  },
  {
    family: "mistral",
    source: `${VLLM_MISTRAL} test_extract_tool_calls_pre_v11_tokenizer[trailing_data_after_json]`,
    reply:
      '[TOOL_CALLS] [{"name": "get_current_weather", "arguments":{"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}]\nextra trailing data',
    calls: [],
    unexecuted: true,
    differs:
      "vLLM makes the call and drops the trailing text; cairn makes no call that the model wrote more after, and asks it again.",
  },
  {
    family: "mistral",
    source: `${VLLM_MISTRAL} test_extract_tool_calls_pre_v11_regex_fallback_fails`,
    reply: "[TOOL_CALLS] not json at all",
    calls: [],
    unexecuted: true,
    differs: "vLLM returns the text after the marker as the answer; cairn asks the model again.",
  },
  // --- Llama 3.x: bare JSON, <|python_tag|> ---
  {
    family: "llama",
    source: `${VLLM_LLAMA} test_extract_tool_calls_with_arguments`,
    reply: '{"name": "searchTool", "parameters": {"query": "test query", "limit": 10}}',
    calls: [{ name: "searchTool", args: { query: "test query", limit: 10 } }],
  },
  {
    family: "llama",
    source: `${VLLM_LLAMA} test_extract_tool_calls_with_arguments, ending in Llama's <|eot_id|> (issue 39)`,
    reply: '{"name": "searchTool", "parameters": {"query": "test query", "limit": 10}}<|eot_id|>',
    calls: [{ name: "searchTool", args: { query: "test query", limit: 10 } }],
  },
  {
    family: "llama",
    source: `${VLLM_LLAMA} test_extract_tool_calls_multiple_json_with_whitespace`,
    reply:
      '{"name": "searchTool", "parameters": {"query": "test1"}} ; {"name": "getOpenIncidentsTool", "parameters": {}} ; {"name": "searchTool", "parameters": {"query": "test2"}}',
    calls: [
      { name: "searchTool", args: { query: "test1" } },
      { name: "getOpenIncidentsTool", args: {} },
      { name: "searchTool", args: { query: "test2" } },
    ],
  },
  {
    family: "llama",
    source: `${VLLM_LLAMA} test_extract_tool_calls_deeply_nested_json`,
    reply:
      '{"name": "complexTool", "parameters": {"level1": {"level2": {"level3": {"level4": {"value": "deep"}}}}}}',
    calls: [{ name: "complexTool", args: { level1: { level2: { level3: { level4: { value: "deep" } } } } } }],
  },
  {
    family: "llama",
    source: `${VLLM_LLAMA} test_extract_tool_calls_with_escaped_quotes_in_nested_json`,
    reply: '{"name": "parserTool", "parameters": {"text": "He said \\"Hello {world}\\""}}',
    calls: [{ name: "parserTool", args: { text: 'He said "Hello {world}"' } }],
  },
  {
    family: "llama",
    source:
      "vLLM llama_tool_parser (the <|python_tag|> prefix it strips), with vLLM's test_extract_tool_calls_with_arguments_key",
    reply: '<|python_tag|>{"name": "searchTool", "arguments": {"query": "test"}}',
    calls: [{ name: "searchTool", args: { query: "test" } }],
  },
  {
    family: "llama",
    source: `${LLAMACPP_LLAMA} (message_assist_call)`,
    reply: '{"name": "special_function", "parameters": {"arg1": 1}}',
    calls: [{ name: "special_function", args: { arg1: 1 } }],
  },
  {
    family: "llama",
    source: `${VLLM_LLAMA} test_extract_tool_calls_simple`,
    reply:
      'Here is the result: {"name": "getOpenIncidentsTool", "parameters": {}} Would you like to know more?',
    calls: [],
    differs:
      "vLLM makes the call from JSON anywhere in the reply; cairn reads bare JSON only when it is the whole reply, as Ollama does: an object in prose is an example.",
  },
  {
    family: "llama",
    source: `${LLAMACPP_HERMES} ("This is not a tool call:")`,
    reply: 'This is not a tool call:\n{"name": "special_function", "arguments": {"arg1": 1}}',
    calls: [],
    differs:
      "llama.cpp makes the call after the prose; cairn reads bare JSON only when it is the whole reply.",
  },
  {
    family: "llama",
    source: `${OLLAMA_TOOLS} "json not a tool call" (no such tool)`,
    reply: '{"name": "search", "arguments": {"query": "What is the capital of Canada?"}}',
    calls: [],
  },
  {
    family: "llama",
    source: `${OLLAMA_TOOLS} "json object followed by tool call"`,
    reply: '{"name": "jeff"}{"name": "get_conditions", "arguments": {"location": "San Francisco"}}',
    calls: [],
  },
  {
    family: "llama",
    source: `${VLLM_LLAMA} test_extract_tool_calls_invalid_json`,
    reply: '{"name": "invalidTool", "parameters": {invalid json}',
    calls: [],
  },
  {
    family: "llama",
    source: `${LLAMACPP_LLAMA} (a built-in tool: <|python_tag|>code_interpreter.call(…))`,
    reply: "<|python_tag|>code_interpreter.call(code=\"print('hey')\")",
    calls: [],
    unexecuted: true,
    differs:
      "llama.cpp makes the call to Llama's built-in code_interpreter; cairn has no built-in tools of Llama's, and asks the model for a call to one of its own.",
  },
  // --- DeepSeek ---
  {
    family: "deepseek",
    source: `${OLLAMA_DEEPSEEK} (content before a V3.1 call)`,
    reply:
      'I\'ll check the weather.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"location":"Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    calls: [{ name: "get_weather", args: { location: "Paris" } }],
  },
  {
    family: "deepseek",
    source: `${OLLAMA_DEEPSEEK} (two calls)`,
    reply:
      'Getting weather for both cities.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"location":"Paris"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"location":"London"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    calls: [
      { name: "get_weather", args: { location: "Paris" } },
      { name: "get_weather", args: { location: "London" } },
    ],
  },
  {
    family: "deepseek",
    source: `${OLLAMA_DEEPSEEK} (nested arguments)`,
    reply:
      'Processing data.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>process_data<｜tool▁sep｜>{"items":["item1","item2"],"config":{"enabled":true,"threshold":0.95}}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    calls: [
      {
        name: "process_data",
        args: { items: ["item1", "item2"], config: { enabled: true, threshold: 0.95 } },
      },
    ],
  },
  {
    family: "deepseek",
    source: `${OLLAMA_DEEPSEEK} (no arguments)`,
    reply:
      "Pinging server.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>ping<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    calls: [{ name: "ping", args: {} }],
  },
  {
    family: "deepseek",
    source: `${OLLAMA_TOOLS} "deepseek" (V3's function<｜tool▁sep｜>name and a fenced JSON block, ASCII bars)`,
    reply:
      '<think>Wait, I need to call a tool</think><|tool▁calls▁begin|><|tool▁call▁begin|>function<|tool▁sep|>get_temperature\n```json\n{"city": "Tokyo"}\n```<|tool▁call▁end|><|tool▁calls▁end|><|end▁of▁sentence|>',
    calls: [{ name: "get_temperature", args: { city: "Tokyo" } }],
  },
  {
    family: "deepseek",
    source: `${OLLAMA_DEEPSEEK} (tool output quoted in the answer)`,
    reply:
      "Here's the weather: <｜tool▁output▁begin｜>Temperature: 22°C, Sunny<｜tool▁output▁end｜> Hope that helps!",
    calls: [],
  },
  {
    family: "deepseek",
    source: `${OLLAMA_DEEPSEEK} (text after the call)`,
    reply:
      'I\'ll help you.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"location":"Tokyo"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>完成 ✅',
    calls: [],
    unexecuted: true,
    differs:
      "Ollama makes the call and shows the text after it (here a claim that the work is done, written before the tool ran); cairn asks the model again.",
  },
  // --- Granite: <|tool_call|> ---
  {
    family: "granite",
    source: `${VLLM_GRANITE} single_tool_call_output`,
    reply: '<|tool_call|> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]',
    calls: [{ name: "get_weather", args: { city: "Tokyo" } }],
  },
  {
    family: "granite",
    source: `${VLLM_GRANITE} parallel_tool_calls_output`,
    reply:
      '<|tool_call|> [\n  {"name": "get_weather", "arguments": {"city": "Tokyo"}},\n  {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}\n]',
    calls: [
      { name: "get_weather", args: { city: "Tokyo" } },
      { name: "get_time", args: { timezone: "Asia/Tokyo" } },
    ],
  },
  {
    family: "granite",
    source: `${VLLM_GRANITE} empty_arguments_output`,
    reply: '<|tool_call|> [{"name": "refresh", "arguments": {}}]',
    calls: [{ name: "refresh", args: {} }],
  },
  {
    family: "granite",
    source: `${VLLM_GRANITE} surrounding_text_output`,
    reply:
      'Let me check the weather for you.\n<|tool_call|> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]\nI\'ll get that information.',
    calls: [],
    unexecuted: true,
    differs:
      "vLLM marks this case as one its parser gets wrong (xfail); cairn makes no call the model wrote more after, and asks it again.",
  },
  {
    family: "granite",
    source: `${VLLM_GRANITE} malformed_input_outputs (unclosed)`,
    reply: '<|tool_call|> [{"name": "func", "arguments": {',
    calls: [],
    unexecuted: true,
  },
  {
    family: "granite",
    source: `${VLLM_GRANITE} malformed_input_outputs (JSON but not a call)`,
    reply: 'Some text [{"name": "func"}]',
    calls: [],
  },
  // --- cairn's fenced form, and fences that are code being shown ---
  {
    family: "fenced",
    source: "cairn src/context/prompts/text-tools.md (the form cairn asks a text-mode model for)",
    reply: 'Plan: look first.\n```json\n{"tool": "get_conditions", "arguments": {"location": "Oslo"}}\n```',
    calls: [{ name: "get_conditions", args: { location: "Oslo" } }],
  },
  {
    family: "fenced",
    source: `${LLAMACPP_HERMES} (a whole reply that is one fenced JSON call)`,
    reply: '```json\n  {"name": "special_function", "arguments": {"arg1": 1}}\n```',
    calls: [{ name: "special_function", args: { arg1: 1 } }],
  },
  {
    family: "fenced",
    source: "cairn: a text-mode model that writes name/arguments in its fence",
    textMode: true,
    reply: 'I will read it.\n```json\n{"name": "get_conditions", "arguments": {"location": "Oslo"}}\n```',
    calls: [{ name: "get_conditions", args: { location: "Oslo" } }],
  },
  {
    family: "fenced",
    source: "cairn: a JSON example in an explanation, in text mode (issue 39)",
    textMode: true,
    reply:
      'A call names the tool and its arguments:\n```json\n{"name": "get_conditions", "arguments": {"location": "Oslo"}}\n```\nThe result comes back in the next message.',
    calls: [],
  },
  {
    family: "fenced",
    source: "cairn: the JSON of a call the person asked to see, after a sentence (issue 39)",
    reply:
      'Here is the call you asked for:\n```json\n{"name": "get_conditions", "arguments": {"location": "Oslo"}}\n```',
    calls: [],
    differs:
      "llama.cpp would make a call from a fenced block; cairn does only from its own form, or from a fence that is the whole reply.",
  },
  {
    family: "fenced",
    source: "cairn: ordinary JSON in a fence",
    reply: 'Use this:\n```json\n{"a": 1}\n```',
    calls: [],
  },
];
