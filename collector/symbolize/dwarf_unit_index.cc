// A compile unit's functions, inlined calls and scopes, from one walk. See dwarf_unit_index.h.
//
// Must never: recurse (the walk keeps its own bounded stack) or index past its vectors.
#include "collector/symbolize/dwarf_unit_index.h"

#include <dwarf.h>

#include <algorithm>
#include <limits>

#include "collector/symbolize/dwarf_names.h"

namespace brrr::symbolize {
namespace {

// Bounds against malformed or huge DWARF.
constexpr size_t kMaxDies = 4'000'000;  // visited per unit
constexpr size_t kMaxDepth = 512;
constexpr int kMaxRangesPerDie = 4096;
constexpr size_t kMaxChain = 256;
constexpr int kMaxPrefixNesting = 8;  // functions named through their declarations
constexpr Dwarf_Off kUnitEnd = std::numeric_limits<Dwarf_Off>::max();

}  // namespace

DwarfUnitIndex::DwarfUnitIndex(Dwarf_Die* unit) : unit_offset_(dwarf_dieoffset(unit)) {
  Walk(unit);
  std::sort(ranges_.begin(), ranges_.end(),
            [](const Range& a, const Range& b) { return a.low < b.low; });
}

void DwarfUnitIndex::Walk(Dwarf_Die* unit) {
  // One level per DIE being iterated over with its siblings: the next DIE to visit there, and
  // what holds that level (node, scope, and where the holder's DIEs end).
  struct Level {
    Dwarf_Die die;
    int node, scope;
    Dwarf_Off end;
  };
  std::vector<Level> stack;
  Dwarf_Die child;
  if (dwarf_child(unit, &child) != 0) return;
  stack.push_back({child, -1, -1, kUnitEnd});
  for (size_t visited = 0; !stack.empty() && visited < kMaxDies; ++visited) {
    Level level = stack.back();
    Dwarf_Die die = level.die;
    Dwarf_Die next;
    const bool has_next = dwarf_siblingof(&die, &next) == 0;
    const Dwarf_Off end = has_next ? dwarf_dieoffset(&next) : level.end;
    if (has_next) {
      stack.back().die = next;
    } else {
      stack.pop_back();
    }
    int node = level.node;
    int scope = level.scope;
    bool descend = false;
    const int tag = dwarf_tag(&die);
    switch (tag) {
      case DW_TAG_namespace:
      case DW_TAG_class_type:
      case DW_TAG_structure_type:
      case DW_TAG_union_type:
        descend = true;
        break;
      case DW_TAG_subprogram:
      case DW_TAG_inlined_subroutine:
      case DW_TAG_entry_point: {
        // Only instances with code hold addresses (declarations and abstract instances don't);
        // all may hold local classes.
        Dwarf_Addr base = 0, low = 0, high = 0;
        ptrdiff_t offset = 0;
        int added = 0;
        const int index = static_cast<int>(nodes_.size());
        while (added < kMaxRangesPerDie &&
               (offset = dwarf_ranges(&die, offset, &base, &low, &high)) > 0) {
          if (high > low) {
            ranges_.push_back({low, high, index});
            ++added;
          }
        }
        if (added > 0) {
          const int depth = level.node < 0 ? 0 : nodes_[level.node].depth + 1;
          nodes_.push_back({die, level.node, depth});
          node = index;
        }
        descend = true;
        break;
      }
      case DW_TAG_lexical_block:
      case DW_TAG_try_block:
      case DW_TAG_catch_block:
        descend = true;  // inlined calls and local classes sit in blocks of functions
        break;
      default:
        break;
    }
    const bool has_children = descend && dwarf_haschildren(&die) > 0;
    // A scope of the names within it (an inlined call names no scope: its origin does).
    if (has_children && tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block &&
        tag != DW_TAG_try_block && tag != DW_TAG_catch_block) {
      scopes_.push_back({dwarf_dieoffset(&die), end, die, level.scope});
      scope = static_cast<int>(scopes_.size()) - 1;
    }
    if (has_children && stack.size() < kMaxDepth && dwarf_child(&die, &child) == 0) {
      stack.push_back({child, node, scope, end});
    }
  }
}

std::vector<Dwarf_Die> DwarfUnitIndex::ChainAt(uint64_t pc) const {
  // The deepest node with a range holding pc; only ranges starting at or before pc can.
  const auto last = std::upper_bound(ranges_.begin(), ranges_.end(), pc,
                                     [](uint64_t value, const Range& r) { return value < r.low; });
  int innermost = -1;
  for (auto it = ranges_.begin(); it != last; ++it) {
    if (pc < it->high && (innermost < 0 || nodes_[it->node].depth > nodes_[innermost].depth)) {
      innermost = it->node;
    }
  }
  std::vector<Dwarf_Die> chain;
  for (int n = innermost; n >= 0 && chain.size() < kMaxChain; n = nodes_[n].parent) {
    chain.push_back(nodes_[n].die);
    if (dwarf_tag(&chain.back()) != DW_TAG_inlined_subroutine) break;
  }
  return chain;
}

std::string DwarfUnitIndex::PrefixAt(Dwarf_Off offset) const { return Prefix(offset, 0); }

std::string DwarfUnitIndex::Prefix(Dwarf_Off offset, int nesting) const {
  // The last scope starting before the DIE; the innermost scope holding it is that one or one
  // of its ancestors (scopes nest).
  const auto after =
      std::lower_bound(scopes_.begin(), scopes_.end(), offset,
                       [](const Scope& s, Dwarf_Off value) { return s.begin < value; });
  int s = static_cast<int>(after - scopes_.begin()) - 1;
  while (s >= 0 && offset >= scopes_[s].end) s = scopes_[s].parent;
  std::vector<std::string> names;
  for (; s >= 0 && names.size() < kMaxChain; s = scopes_[s].parent) {
    Dwarf_Die die = scopes_[s].die;
    const int tag = dwarf_tag(&die);
    if (tag == DW_TAG_namespace) {
      const char* name = DwarfName(&die);
      names.push_back(name != nullptr ? name : "(anonymous namespace)");
    } else if (tag != DW_TAG_subprogram) {
      const char* name = DwarfName(&die);
      names.push_back(name != nullptr ? name : "{unnamed type}");
    } else {
      // A function holding a local class: named with the scopes of its declaration (an
      // out-of-line definition sits at file scope, its declaration in its class or namespace).
      const char* name = DwarfName(&die);
      Dwarf_Die decl = DwarfDeclaration(&die);
      Dwarf_Die unit;
      const bool here = dwarf_diecu(&decl, &unit, nullptr, nullptr) != nullptr &&
                        dwarf_dieoffset(&unit) == unit_offset_;
      std::string function = name != nullptr ? name : "{unnamed function}";
      if (here && nesting < kMaxPrefixNesting && dwarf_dieoffset(&decl) != dwarf_dieoffset(&die)) {
        function.insert(0, Prefix(dwarf_dieoffset(&decl), nesting + 1));
        names.push_back(std::move(function));
        break;
      }
      names.push_back(std::move(function));
    }
  }
  std::string prefix;
  for (auto it = names.rbegin(); it != names.rend(); ++it) prefix.append(*it).append("::");
  return prefix;
}

}  // namespace brrr::symbolize
