import { helpText, parseOptions, type CommandSpec, type OptionSpec, type Parsed } from "../args.js";
import type { Command, CommandContext } from "./types.js";

/**
 * A command from its spec and what it does: flags parsed strictly, --help answered, and a
 * returned value printed as one JSON line on stdout (nothing when it returns undefined).
 * The handler gets the spec's named arguments (rehook events get <id>) after the context.
 */
export function defineCommand<Options extends OptionSpec>(
  path: string[],
  spec: CommandSpec<Options>,
  handler: (options: Parsed<Options>, context: CommandContext, args: string[]) => Promise<unknown>,
): Command {
  return {
    path,
    summary: spec.summary,
    async run(argv, context) {
      const line = parseOptions(spec, argv);
      if (line === "help") {
        context.stdout.write(`${helpText(spec)}\n`);
        return 0;
      }
      const result = await handler(line.options, context, line.args);
      if (result !== undefined) context.stdout.write(`${JSON.stringify(result)}\n`);
      return 0;
    },
  };
}
