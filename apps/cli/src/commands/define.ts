import { helpText, parseOptions, type CommandSpec, type OptionSpec, type Parsed } from "../args.js";
import type { Command, CommandContext } from "./types.js";

/**
 * A command from its spec and what it does: flags parsed strictly, --help answered, and a
 * returned value printed as one JSON line on stdout (nothing when it returns undefined).
 */
export function defineCommand<Options extends OptionSpec>(
  path: string[],
  spec: CommandSpec<Options>,
  handler: (options: Parsed<Options>, context: CommandContext) => Promise<unknown>,
): Command {
  return {
    path,
    summary: spec.summary,
    async run(argv, context) {
      const options = parseOptions(spec, argv);
      if (options === "help") {
        context.stdout.write(`${helpText(spec)}\n`);
        return 0;
      }
      const result = await handler(options, context);
      if (result !== undefined) context.stdout.write(`${JSON.stringify(result)}\n`);
      return 0;
    },
  };
}
