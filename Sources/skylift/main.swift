import SkyliftCLI
