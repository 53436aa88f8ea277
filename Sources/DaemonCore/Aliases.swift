import PasteboardCore

// ControlProtocol has a wire form of the same name; inside the daemon the name means the model's item.
typealias PasteboardItem = PasteboardCore.PasteboardItem
