// RichText: placeholder until the module lands.
