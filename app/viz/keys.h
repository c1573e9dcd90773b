// Keyboard through one helper: imgui 1.86 has no named keys, and its GLFW
// backend stores GLFW key codes in io.KeysDown[], so GLFW codes are the keys.
#pragma once

namespace microddp::viz {

enum class Key { step = 262 /*GLFW_KEY_RIGHT*/, back = 263 /*GLFW_KEY_LEFT*/, play = 32 /*GLFW_KEY_SPACE*/,
                 reset = 82 /*GLFW_KEY_R*/,
                 next_beat = 78 /*GLFW_KEY_N*/, prev_beat = 80 /*GLFW_KEY_P*/,
                 // Present mode: a presentation clicker sends Page Down / Page Up.
                 page_down = 267 /*GLFW_KEY_PAGE_DOWN*/, page_up = 266 /*GLFW_KEY_PAGE_UP*/,
                 home = 268 /*GLFW_KEY_HOME*/,
                 // Present mode with a lesson (present.h): R reveals the answer, T sets the
                 // clock to the beat's planned start, P opens the class poll's field (Esc closes it).
                 reveal = 82 /*GLFW_KEY_R*/, clock = 84 /*GLFW_KEY_T*/, poll = 80 /*GLFW_KEY_P*/, escape = 256 /*GLFW_KEY_ESCAPE*/, present = 294 /*GLFW_KEY_F5*/ };

// True in the frame the key went down (with key repeat), unless a text field
// has the keyboard.
bool key_pressed(Key k);
// True in the frame the key went down (no repeat), even while a text field
// has the keyboard: Esc closing the class poll's field.
bool key_pressed_while_typing(Key k);

}  // namespace microddp::viz
