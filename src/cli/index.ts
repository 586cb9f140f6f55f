export { runCli, type CliEnvironment, type CliIo } from './run.js';
export { parseArgs, parseValue, HELP, USAGE, type CliOptions, type ParsedArgs } from './args.js';
